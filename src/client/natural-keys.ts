import { EmailApiError, ExistingObject, isEmailApiError } from "./errors";
import type { CreateRouteInput, Domain, Route } from "./types";

/**
 * Objects by their natural keys. The API has no idempotency key, so ownership is proven by name:
 * a list sent after a create began shows the name free, and an object of that name found after
 * the create's answer was lost can then only be the one the create made.
 */

/** Clocks of client and service may differ by this much. */
const CLOCK_SKEW_MS = 60_000;

/** Domain names are case-insensitive, and a trailing dot changes nothing. */
export function sameDomainName(a: string, b: string): boolean {
  const normal = (name: string) => name.trim().toLowerCase().replace(/\.$/, "");
  return normal(a) === normal(b);
}

/** The domain of that name, if listed. */
export function findDomain(domains: readonly Domain[], name: string): Domain | undefined {
  return domains.find((domain) => sameDomainName(domain.name, name));
}

/** True when `createdAt` is well before `time` (clock skew allowed); false when unknown. */
export function madeBefore(createdAt: string | null, time: number): boolean {
  const made = createdAt ? Date.parse(createdAt) : NaN;
  return !Number.isNaN(made) && made < time - CLOCK_SKEW_MS;
}

/**
 * The domain a create started at `startedAt` made, found by name after its answer was lost. One made
 * well before the call would have been in the list that proved the name free: not this call's.
 */
export function domainMadeByLostCreate(
  domains: readonly Domain[],
  name: string,
  startedAt: number,
): Domain | undefined {
  const domain = findDomain(domains, name);
  return domain && !madeBefore(domain.createdAt, startedAt) ? domain : undefined;
}

/** A route's natural key: its name (case-insensitive) on its domain. */
export function sameRouteName(route: Pick<Route, "name" | "domainId">, input: CreateRouteInput): boolean {
  return route.domainId === input.domainId && route.name.toLowerCase() === input.name.toLowerCase();
}

/**
 * The route a create made, found after its answer was lost: only a route identical to the request
 * counts, with the service's defaults for what the request left out.
 */
export function routeMadeByLostCreate(routes: readonly Route[], input: CreateRouteInput): Route | undefined {
  const mode = input.mode ?? "Endpoint";
  return routes.find(
    (r) =>
      sameRouteName(r, input) &&
      // Postal keeps no endpoint on a route whose mode does not deliver.
      (r.endpointId === input.endpointId || (r.endpointId === null && mode !== "Endpoint")) &&
      r.mode === mode &&
      r.spamMode === (input.spamMode ?? "Mark"),
  );
}

/**
 * The error for a create that was not sent because the name is taken: this call did not make the
 * holder, so nothing may claim it.
 */
export function nameTaken(operation: string, what: string, holder: ExistingObject): EmailApiError {
  return new EmailApiError({
    operation,
    kind: "conflict",
    code: "AlreadyExists",
    serviceMessage: `${what} already exists (id ${holder.id}); the create was not sent`,
    existing: { id: holder.id, createdAt: holder.createdAt },
  });
}

/** Postal refuses a duplicate name with "Name is already added"; forks answer a conflict. */
export function isNameTaken(error: unknown): error is EmailApiError {
  return (
    isEmailApiError(error) &&
    (error.kind === "conflict" || (error.kind === "validation" && /already/i.test(error.serviceMessage)))
  );
}
