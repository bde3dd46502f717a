import { EmailApiError, ExistingObject, isEmailApiError, withDetails } from "./errors";
import type { CreateRouteInput, Domain, Route } from "./types";

/**
 * Objects by their natural keys: a domain by its name, a route by its name on its domain. The
 * service holds one object per key and refuses a create of a key it holds (`DomainNameExists`,
 * `RouteAlreadyExists`), so a create needs no list before it: the service's refusal is the proof
 * that the name was taken, and its success the proof that the object is this call's.
 *
 * What nothing proves is whose an object is when the answer to its create was lost. The API has
 * no idempotency key, and nothing a create sends marks the object as this call's: a domain keeps
 * only its name; a route keeps what it was created with, which another stack declaring the same
 * route sends too; `uuid`, `id` and `created_at` are the service's own, and a list taken before the
 * create proves only that the name was free then, not who took it since. Another stack creating
 * the same name while this call ran made an object that looks exactly like this call's own lost
 * create. So an object found after a lost answer is never claimed, changed or deleted: the call
 * fails with `answerLostObjectExists`, which names the object and says how to go on.
 */

/** Domain names are case-insensitive, and a trailing dot changes nothing. */
export function sameDomainName(a: string, b: string): boolean {
  const normal = (name: string) => name.trim().toLowerCase().replace(/\.$/, "");
  return normal(a) === normal(b);
}

/** The domain of that name, if listed. */
export function findDomain(domains: readonly Domain[], name: string): Domain | undefined {
  return domains.find((domain) => sameDomainName(domain.name, name));
}

/** A route's natural key: its name (case-insensitive) on its domain. */
export function sameRouteName(route: Pick<Route, "name" | "domainId">, input: CreateRouteInput): boolean {
  return route.domainId === input.domainId && route.name.toLowerCase() === input.name.toLowerCase();
}

/**
 * The error for a create whose answer was lost while an object of its key now exists: it may be
 * what the lost request made, or another party's made meanwhile, and nothing tells which (see
 * above). `outcomeUnknown`: whether this call's create was done is not known.
 */
export function answerLostObjectExists(
  operation: string,
  what: string,
  holder: ExistingObject,
): EmailApiError {
  const made = holder.createdAt ? `, created ${holder.createdAt}` : "";
  return new EmailApiError({
    operation,
    kind: "conflict",
    code: "AnswerLostObjectExists",
    serviceMessage:
      `the answer to create was lost, and ${what} now exists (id ${holder.id}${made}): ` +
      "it may be what this create made or another party's made meanwhile, and nothing tells which, so it was left as it is",
    existing: holder,
    outcomeUnknown: true,
  });
}

/**
 * {@link answerLostObjectExists} for a create whose resend, after a lost answer, was refused as a
 * duplicate with no try left to look again (`refusal`, marked outcome unknown): the object found
 * may be what the lost request made, so it is not called another party's. The refusal's words and
 * the tries spent are kept.
 */
export function answerLostThenRefused(
  operation: string,
  what: string,
  holder: ExistingObject,
  refusal: EmailApiError,
): EmailApiError {
  const lost = answerLostObjectExists(operation, what, holder);
  return withDetails(lost, {
    attempts: refusal.attempts,
    serviceMessage: `${lost.serviceMessage}; the resend was refused: ${refusal.serviceMessage}`,
  });
}

/** Clocks of client and service may differ by this much. */
const CLOCK_SKEW_MS = 60_000;

/** True when `createdAt` is well before `time` (clock skew allowed); false when unknown. */
export function madeBefore(createdAt: string | null, time: number): boolean {
  const made = createdAt ? Date.parse(createdAt) : NaN;
  return !Number.isNaN(made) && made < time - CLOCK_SKEW_MS;
}

/**
 * Refuses a domain a create was answered with that was made well before the call began: a
 * deployment that answers a create of a name it holds with the holder (a get-or-create fork, a
 * proxy's cache) did not make it for this call, so it is never recorded or deleted as this call's.
 */
export function refuseIfMadeBefore(domain: Domain, startedAt: number): void {
  if (!madeBefore(domain.createdAt, startedAt)) return;
  throw new EmailApiError({
    operation: "domains/create",
    kind: "conflict",
    code: "AlreadyExists",
    serviceMessage: `a domain named ${domain.name} already exists (id ${domain.id}, created ${domain.createdAt}): the service answered the create with it`,
    existing: { id: domain.id, createdAt: domain.createdAt },
  });
}

/** A lookup whose list did not answer within what was left of the create's try. */
export function lookupCutShort(operation: string, timeoutMs: number): EmailApiError {
  return new EmailApiError({
    operation,
    kind: "transient",
    code: "ETIMEDOUT",
    serviceMessage: `the list looking for what a create made did not answer within ${Math.round(timeoutMs / 1000)} s`,
  });
}

/** Whether an error is `answerLostObjectExists`'s. */
export function isAnswerLostObjectExists(
  error: unknown,
): error is EmailApiError & Required<Pick<EmailApiError, "existing">> {
  return isEmailApiError(error) && error.code === "AnswerLostObjectExists" && error.existing !== undefined;
}

/** Postal refuses a duplicate name with "Name is already added"; forks answer a conflict. */
export function isNameTaken(error: unknown): error is EmailApiError {
  return (
    isEmailApiError(error) &&
    !isAnswerLostObjectExists(error) &&
    (error.kind === "conflict" || (error.kind === "validation" && /already/i.test(error.serviceMessage)))
  );
}
