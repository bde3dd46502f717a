import { checkStatusesOf, type Domain, type DomainCheck, type Route } from "./types";

/**
 * What a write whose answer arrived did to a list of the server's objects, as the function that
 * turns a list into the list as it stands after that write. The process's shared lists keep
 * serving after a write with the write applied (write-through), instead of being thrown away and
 * asked for again: a refresh whose reads come one at a time, each after a verification's check,
 * would otherwise list the domains once per domain.
 *
 * Each is idempotent: a list read after the write landed already shows it and comes out the same;
 * one read before it landed comes out showing it. So a patch may be applied to a list without
 * knowing which side of the write its request fell on, and a caller never gets a list that
 * predates its own write.
 */
export type ListPatch<T> = (items: readonly T[]) => readonly T[];

/** The object as the write answered it, in place of the listed one of its id, or added at the end. */
export function putObject<T extends { id: number }>(object: T): ListPatch<T> {
  return (items) => {
    const at = items.findIndex((item) => item.id === object.id);
    return at < 0 ? [...items, object] : items.map((item, i) => (i === at ? object : item));
  };
}

/** Without the objects `gone` picks (deleted; still listed by a request read before the delete). */
export function removeObjects<T>(gone: (item: T) => boolean): ListPatch<T> {
  return (items) => (items.some(gone) ? items.filter((item) => !gone(item)) : items);
}

/** Without the object of that id. */
export function removeObject<T extends { id: number }>(id: number): ListPatch<T> {
  return removeObjects((item) => item.id === id);
}

/** A domain's delete: the service deletes its routes with it (Postal's `dependent: :destroy`). */
export function domainDeleted(id: number): { domains: ListPatch<Domain>; routes: ListPatch<Route> } {
  return { domains: removeObject(id), routes: removeObjects((route) => route.domainId === id) };
}

/**
 * A domain's check: the service stores the four statuses on the domain, and lists show them. A
 * domain the list does not hold is left out (the list is of a moment before it was made, and the
 * check's answer is not a whole domain).
 */
export function domainChecked(id: number, check: DomainCheck): ListPatch<Domain> {
  return (items) =>
    items.map((domain) => (domain.id === id ? { ...domain, ...checkStatusesOf(check) } : domain));
}

/**
 * A route as a create or an update answered it. An answer without a domain id (some deployments
 * leave it out) takes `domainId` (the one a create asked for), else the one the list holds: a
 * route's domain cannot change.
 */
export function routeWritten(route: Route, domainId?: number): ListPatch<Route> {
  return (items) => {
    const listed = items.find((item) => item.id === route.id);
    return putObject({ ...route, domainId: route.domainId ?? domainId ?? listed?.domainId ?? null })(items);
  };
}
