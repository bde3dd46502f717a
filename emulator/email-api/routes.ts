import { randomUUID } from "node:crypto";
import { DomainRecord, EndpointRecord, RouteRecord, ServerRecord } from "../store/state";
import { Store } from "../store/store";
import { ActionResult, ServerActionRequest } from "./context";
import { ApiError } from "./errors";
import { notFoundTexts, routeTexts, validationTexts } from "./messages";
import { optionalInteger, optionalString, requiredInteger, requiredString, sameId } from "./params";
import { alphabets, uniqueRandomString } from "./random";
import { removeWhere } from "./store-ops";
import { Validation, assertFitsColumn, sameText } from "./validation";

/** Postal's `Route::MODES` (Accept included, although the spec does not list it). */
const MODES = ["Endpoint", "Accept", "Hold", "Bounce", "Reject"];
const SPAM_MODES = ["Mark", "Quarantine", "Fail"];
/** A local part, the `*` wildcard or the special return-path route. */
const NAME_FORMAT = /^([a-z0-9\-.]*|\*|__returnpath__)$/;

/** A route as the service answers it (the spec's Route). */
export interface RouteJson {
  /** Numeric id. */
  id: number;
  /** Opaque id. */
  uuid: string;
  /** The local part (`support`), `*` for every address, or `__returnpath__`. */
  name: string;
  /** The domain it matches. */
  domain_id: number;
  /** The endpoint it delivers to; null when its mode does not deliver. */
  endpoint_id: number | null;
  /** `Endpoint`, `Accept`, `Hold`, `Bounce` or `Reject`. */
  mode: string;
  /** `Mark`, `Quarantine` or `Fail`. */
  spam_mode: string;
}

export function routeJson(route: RouteRecord): RouteJson {
  return {
    id: route.id,
    uuid: route.uuid,
    name: route.name,
    domain_id: route.domainId,
    endpoint_id: route.endpointId,
    mode: route.mode,
    spam_mode: route.spamMode,
  };
}

/** The fields a create or update wants to save, before validation. */
interface RouteDraft {
  name: string;
  mode: string;
  spamMode: string;
  domainId: bigint;
  endpointId: bigint | null;
}

export function serverRoutes(store: Store, server: ServerRecord): RouteRecord[] {
  return store.state.routes.filter((route) => route.serverId === server.id);
}

function findRoute({ store, server, params }: ServerActionRequest): RouteRecord {
  const id = requiredInteger(params, "id");
  const route = serverRoutes(store, server).find((candidate) => sameId(candidate.id, id));
  if (!route) throw new ApiError("RouteNotFound", { message: notFoundTexts.route(id) });
  return route;
}

/**
 * Postal's Route validations, in its order, then the cross-server uniqueness of (name, domain
 * name), which is case-insensitive like Postal's collation. Returns the resolved references.
 */
function validateRoute(
  store: Store,
  server: ServerRecord,
  draft: RouteDraft,
  self?: RouteRecord,
): { domain: DomainRecord; endpoint: EndpointRecord } {
  const validation = new Validation();
  if (draft.name.trim() === "") validation.add("Name", validationTexts.blank);
  if (!NAME_FORMAT.test(draft.name)) validation.add("Name", validationTexts.invalid);
  if (!MODES.includes(draft.mode)) validation.add("Mode", validationTexts.notInList);
  if (!SPAM_MODES.includes(draft.spamMode)) validation.add("Spam mode", validationTexts.notInList);
  const domain = store.state.domains.find((d) => d.serverId === server.id && sameId(d.id, draft.domainId));
  if (!domain) validation.add("Domain", validationTexts.invalid);
  const endpointId = draft.endpointId;
  const endpoint =
    endpointId === null
      ? undefined
      : store.state.endpoints.find((e) => e.serverId === server.id && sameId(e.id, endpointId));
  if (!endpoint) validation.add("Endpoint", validationTexts.invalid);
  validation.throwIfFailed();
  if (!domain || !endpoint) throw new Error("unreachable: a valid route has a domain and an endpoint");
  assertFitsColumn("name", draft.name);

  const clash = store.state.routes.find(
    (route) =>
      route !== self &&
      sameText(route.name, draft.name) &&
      sameText(store.state.domains.find((d) => d.id === route.domainId)?.name ?? "", domain.name),
  );
  if (clash) {
    const owner = store.state.servers.find((s) => s.id === clash.serverId);
    const message =
      clash.serverId === server.id
        ? routeTexts.existsOnThisServer
        : routeTexts.existsOnOtherServer(owner?.permalink ?? "another");
    throw new ApiError("RouteAlreadyExists", { message, status: "conflict" });
  }
  return { domain, endpoint };
}

/** For the request log: the route's natural key, as Postal's `Route#description`. */
const naturalKey = (route: RouteRecord, domain: DomainRecord) => `${route.name}@${domain.name}`;

export function listRoutes({ store, server }: ServerActionRequest): ActionResult {
  const routes = serverRoutes(store, server);
  return { data: routes.map(routeJson), effect: { listed: routes.length } };
}

/**
 * Postal's route create: validates, refuses a taken name, stores the route. `routes/create` and
 * the emulator's seeding (`emulator.emailApi.addRoute`) both go through it.
 */
export function insertRoute(request: ServerActionRequest): { route: RouteRecord; domain: DomainRecord } {
  const { store, server, params } = request;
  const draft: RouteDraft = {
    name: requiredString(params, "name"),
    domainId: requiredInteger(params, "domain_id"),
    endpointId: requiredInteger(params, "endpoint_id"),
    mode: optionalString(params, "mode") ?? "Endpoint",
    spamMode: optionalString(params, "spam_mode") ?? "Mark",
  };
  const { domain, endpoint } = validateRoute(store, server, draft);

  const route: RouteRecord = {
    id: store.nextId("route"),
    uuid: randomUUID(),
    serverId: server.id,
    domainId: domain.id,
    endpointId: endpoint.id,
    name: draft.name,
    mode: draft.mode,
    spamMode: draft.spamMode,
    // Each route's forwarding address is `<token>@<route domain>`.
    token: uniqueRandomString(alphabets.lowerAlphanumeric, 8, (candidate) =>
      store.state.routes.some((other) => other.token === candidate),
    ),
    createdAt: new Date().toISOString(),
  };
  store.state.routes.push(route);
  store.changed();
  return { route, domain };
}

export function createRoute(request: ServerActionRequest): ActionResult {
  const { route, domain } = insertRoute(request);
  return {
    data: routeJson(route),
    effect: { created: { kind: "route", id: route.id, name: naturalKey(route, domain) } },
  };
}

/** Name, endpoint, mode and spam mode change in place; a route never moves to another domain. */
export function updateRoute(request: ServerActionRequest): ActionResult {
  const { store, server, params } = request;
  const route = findRoute(request);
  const endpointId = optionalInteger(params, "endpoint_id");
  const draft: RouteDraft = {
    name: optionalString(params, "name") ?? route.name,
    mode: optionalString(params, "mode") ?? route.mode,
    spamMode: optionalString(params, "spam_mode") ?? route.spamMode,
    domainId: BigInt(route.domainId),
    endpointId: endpointId ?? (route.endpointId === null ? null : BigInt(route.endpointId)),
  };
  const { endpoint } = validateRoute(store, server, draft, route);

  Object.assign(route, {
    name: draft.name,
    mode: draft.mode,
    spamMode: draft.spamMode,
    endpointId: endpoint.id,
  });
  store.changed();
  return { data: routeJson(route), effect: { updated: { kind: "route", id: route.id } } };
}

export function deleteRoute(request: ServerActionRequest): ActionResult {
  const { store } = request;
  const route = findRoute(request);
  removeWhere(store.state.routes, (candidate) => candidate === route);
  store.changed();
  return { data: { id: route.id, name: route.name }, effect: { deleted: { kind: "route", id: route.id } } };
}
