import type * as dynamic from "@pulumi/pulumi/dynamic";
import {
  EmailApiError,
  EmailDeliveryClient,
  isAnswerLostObjectExists,
  isNameTaken,
  isObjectNotFound,
  ListOptions,
  Route,
} from "../client";
import { answerLostThenRefused } from "../client/natural-keys";
import { CheckedInputs, checkRouteInputs, RouteInputs } from "../inputs";
import { rememberConfig } from "./configured";
import { READ_LIST_MAX_AGE_MS, serviceClient } from "./connection";
import { changedFields, diffByRules, pickFields } from "./diff";
import {
  Created,
  ReadAnswer,
  StoredProviderProperty,
  TypedResourceProvider,
  Updated,
  withoutStoredProvider,
} from "./stored-provider";

/** What a route resource records in state, plus `adopt` (later versions must keep reading it). */
export interface RouteOutputs {
  /** The service's numeric id (also the resource id). */
  routeId: number;
  /** The service's opaque id. */
  uuid: string;
  /** The local part it receives. */
  name: string;
  /** The id of the domain it receives for. */
  domainId: number;
  /** The id of the endpoint it delivers to. */
  endpointId: number;
  /** What happens to matching mail, as the service says. */
  mode: string;
  /** What happens to spam, as the service says. */
  spamMode: string;
  /** Whether an existing route was to be taken over (the input). */
  adopt: boolean;
}

/** The properties an update call can change. */
const UPDATABLE = ["name", "endpointId", "mode", "spamMode"] as const;

/** What adopting an existing route changes on it (it already has the name and domain). */
const CONVERGED = ["endpointId", "mode", "spamMode"] as const;

/** The inputs as the engine sends them once checked, with the stored provider. */
type RouteProps = RouteInputs & StoredProviderProperty;

/** The state as the engine sends it, with the stored provider. */
type RouteState = RouteOutputs & StoredProviderProperty;

/** The inputs `read()` finds for a route: those that would make it as it is. */
export type RouteReadInputs = Pick<
  RouteOutputs,
  "name" | "domainId" | "endpointId" | "mode" | "spamMode" | "adopt"
>;

/** The names of {@link RouteReadInputs}, for picking them from the outputs. */
const READ_INPUTS = [
  "name",
  "domainId",
  "endpointId",
  "mode",
  "spamMode",
  "adopt",
] as const satisfies readonly (keyof RouteReadInputs)[];

/** The routeProvider as callers see it: every method there, each answer typed (see `TypedResourceProvider`). */
export type RouteProvider = TypedResourceProvider<RouteInputs, RouteOutputs, RouteReadInputs>;

/**
 * An inbound route. The API cannot move a route to another domain, so a new `domainId` replaces
 * it (the old one first: names are unique per domain); everything else is updated in place.
 */
export const routeProvider: RouteProvider = {
  configure: rememberConfig,

  async check(_olds: unknown, news: object): Promise<CheckedInputs<RouteInputs>> {
    return checkRouteInputs(news);
  },

  async diff(_id: string, olds: RouteState, news: RouteProps): Promise<dynamic.DiffResult> {
    return diffByRules(olds, news, {
      replace: ["domainId"],
      update: [...UPDATABLE],
      deleteBeforeReplace: true,
    });
  },

  async create(inputs: RouteProps): Promise<Created<RouteOutputs>> {
    const client = serviceClient();
    if (inputs.adopt) {
      const existing = await findRoute(client, inputs);
      if (existing) return { id: String(existing.id), outs: await converge(client, existing, inputs) };
    }
    try {
      const { route } = await client.createRoute(inputs);
      return { id: String(route.id), outs: routeOutputs(route, inputs) };
    } catch (error) {
      const lost = isAnswerLostObjectExists(error);
      if (!lost && !isNameTaken(error)) throw error;
      // Made meanwhile by whoever (another party, or this call's create whose answer was lost):
      // with `adopt`, the user takes it over whoever made it, as when it was there before.
      const found = inputs.adopt ? await findRoute(client, inputs, { fresh: true }) : undefined;
      if (found) return { id: String(found.id), outs: await converge(client, found, inputs) };
      if (lost) throw answerLost(inputs, error, error.existing.id);
      // Refused by the service, so not made by this call, even when it is identical: another Route
      // resource or stack may own it, and sharing one id would let either delete the other's
      // route. A list only on this failure, sent after the refusal, to name the holder.
      const existing = (await findRoute(client, inputs, { fresh: true })) ?? error.existing;
      if (!existing) throw error; // the conflict is on another server (same domain name there)
      // Refused only after an answer of this call was lost (its tries ran out before it could look
      // again): the route found may be what the lost request made, so it is not called another's.
      if (error.outcomeUnknown) {
        const holder = { id: existing.id, createdAt: "createdAt" in existing ? existing.createdAt : null };
        const what = `a route named ${inputs.name} on domain ${inputs.domainId}`;
        throw answerLost(inputs, answerLostThenRefused("routes/create", what, holder, error), holder.id);
      }
      const differences = "name" in existing ? differencesFrom(existing, inputs) : [];
      throw new Error(
        `Route "${inputs.name}" already exists on domain ${inputs.domainId} (id ${existing.id}) and this stack did not create it: ` +
          "another Route resource (in this program or another stack) may declare it, or an earlier run stopped before recording it. " +
          `Nothing was changed.${differences.length ? ` It differs from this resource: ${differences.join(", ")}.` : ""} ` +
          "Either set `adopt: true` to manage it here (only if nothing else does), or delete it on the service and run `pulumi up` again.",
        { cause: error },
      );
    }
  },

  async read(id: string, state: RouteState): Promise<ReadAnswer<RouteReadInputs, RouteOutputs>> {
    const client = serviceClient();
    // Both lists are shared with every other resource's refresh in this process.
    const reuse = { maxAgeMs: READ_LIST_MAX_AGE_MS };
    const look = async (options: ListOptions) => {
      const [routes, domains] = await Promise.all([client.listRoutes(options), client.listDomains(options)]);
      const route = routes.find((candidate) => String(candidate.id) === id);
      // A route whose domain is gone is gone too (the service deletes a domain's routes with it).
      // Postal's return-path route belongs to no domain (`domain_id` null): it stands on its own.
      const domainHeld = route?.domainId === null || domains.some((domain) => domain.id === route?.domainId);
      return route && domainHeld ? route : undefined;
    };
    // Gone only when a list sent after this read began confirms it (as for domains).
    const route = (await look(reuse)) ?? (await look({ fresh: true }));
    if (!route) return { id: undefined, props: {} };
    const outs = routeOutputs(route, { ...state, adopt: state.adopt ?? false });
    return { id, props: outs, inputs: pickFields(outs, READ_INPUTS) };
  },

  async update(id: string, olds: RouteState, news: RouteProps): Promise<Updated<RouteOutputs>> {
    const changes = changedFields(olds, news, UPDATABLE);
    if (changes.length === 0) return { outs: { ...withoutStoredProvider(olds), adopt: news.adopt } };
    const route = await serviceClient().updateRoute({ id: Number(id), ...pickFields(news, changes) });
    return { outs: routeOutputs(route, news) };
  },

  async delete(id: string): Promise<void> {
    try {
      await serviceClient().deleteRoute(Number(id));
    } catch (error) {
      if (!isObjectNotFound(error)) throw error; // already gone (or taken with its domain)
    }
  },
};

/**
 * State from what the service returned. A service that clears the endpoint of a route whose mode
 * does not deliver (Postal's mode words do) returns none: the requested one is kept, so the next
 * preview does not see a change.
 */
function routeOutputs(
  route: Route,
  inputs: Pick<RouteInputs, "adopt" | "domainId" | "endpointId">,
): RouteOutputs {
  return {
    routeId: route.id,
    uuid: route.uuid,
    name: route.name,
    domainId: route.domainId ?? inputs.domainId,
    endpointId: route.endpointId ?? inputs.endpointId,
    mode: route.mode,
    spamMode: route.spamMode,
    adopt: inputs.adopt,
  };
}

async function findRoute(
  client: EmailDeliveryClient,
  inputs: RouteInputs,
  options?: ListOptions,
): Promise<Route | undefined> {
  return (await client.listRoutes(options)).find(
    (route) => route.domainId === inputs.domainId && route.name.toLowerCase() === inputs.name.toLowerCase(),
  );
}

/** `endpointId is 3 (here 2)`: how an existing route differs from the inputs. */
function differencesFrom(route: Route, inputs: RouteInputs): string[] {
  return changedFields(route, inputs, CONVERGED).map(
    (property) => `${property} is ${String(route[property])} (here ${String(inputs[property])})`,
  );
}

/** Takes over an existing route, changing what differs from the inputs in one update call. */
async function converge(
  client: EmailDeliveryClient,
  route: Route,
  inputs: RouteInputs,
): Promise<RouteOutputs> {
  const changes = changedFields(route, inputs, CONVERGED);
  if (changes.length === 0) return routeOutputs(route, inputs);
  const updated = await client.updateRoute({ id: route.id, ...pickFields(inputs, changes) });
  return routeOutputs(updated, inputs);
}

/**
 * The create's answer was lost and a route of that name is on the domain: this stack's lost
 * create, or another stack's made meanwhile (an identical one too: it would declare the same
 * route). Nothing tells which, so it was left alone.
 */
function answerLost(inputs: RouteInputs, error: EmailApiError, existingId: number): Error {
  return new Error(
    `Route "${inputs.name}" on domain ${inputs.domainId}: the service's answer to create was lost, and a route of that ` +
      `name on the domain now exists (id ${existingId}). It may be the one this run created, or another stack's or ` +
      "person's created meanwhile; nothing tells which, so it was left as it is and this stack does not record it. If it is " +
      "this stack's (nothing else declares it), set `adopt: true` to manage it here, or delete it on the service, and run " +
      "`pulumi up` again. If it is someone else's, choose another name.",
    { cause: error },
  );
}
