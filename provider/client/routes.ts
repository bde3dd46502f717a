import { z } from "zod";
import { EmailApiError } from "./errors";
import { id, listPage, optionalId, unwrapped } from "./schemas";
import type { CreateRouteInput, Route, UpdateRouteInput } from "./types";

/** A route as the service answers it. */
export const routeSchema = z
  .object({
    id,
    uuid: z.string().nullish(),
    name: z.string(),
    domain_id: optionalId,
    endpoint_id: optionalId,
    mode: z.string().nullish(),
    spam_mode: z.string().nullish(),
  })
  .transform((raw): Route => ({
    id: raw.id,
    uuid: raw.uuid ?? "",
    name: raw.name,
    domainId: raw.domain_id,
    endpointId: raw.endpoint_id,
    mode: raw.mode ?? "Endpoint",
    spamMode: raw.spam_mode ?? "Mark",
  }));

/** One page of `routes/list`. */
export const routeListSchema = listPage("routes", routeSchema);

/** The route `routes/create` and `routes/update` answer, bare or as `{route: {...}}`. */
export const routeAnswerSchema = unwrapped("route", routeSchema);

/** The body of `routes/create`; what is left out takes the service's default. */
export function encodeCreateRoute(input: CreateRouteInput): Record<string, unknown> {
  return {
    name: input.name,
    domain_id: input.domainId,
    endpoint_id: input.endpointId,
    ...routeSettings(input),
  };
}

/** The body of `routes/update`: only what changes. */
export function encodeUpdateRoute(input: UpdateRouteInput): Record<string, unknown> {
  const body: Record<string, unknown> = { id: input.id };
  if (input.name !== undefined) body.name = input.name;
  if (input.endpointId !== undefined) body.endpoint_id = input.endpointId;
  return { ...body, ...routeSettings(input) };
}

function routeSettings(input: Pick<CreateRouteInput, "mode" | "spamMode">): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (input.mode !== undefined) body.mode = input.mode;
  if (input.spamMode !== undefined) body.spam_mode = input.spamMode;
  return body;
}

/** A route updated without an answer that shows it, and then not found in the list. */
export function updatedRouteNotListed(id: number): EmailApiError {
  return new EmailApiError({
    operation: "routes/update",
    kind: "not-found",
    code: "RouteNotFound",
    serviceMessage: `route ${id} was updated but is no longer listed`,
  });
}
