import type { ListPatch } from "./list-patches";
import { processRuntime } from "./process-runtime";
import type { ListOptions } from "./settings";
import type { Domain, Route } from "./types";

/**
 * Lists shared process-wide (by every copy of the package's modules), by key: one per base
 * URL, API key and kind, since only those clients get the same answer.
 */

/** A shared list: a fresh one (see `ListOptions.fresh`), or one at most `maxAgeMs` old. */
export function sharedList<T>(key: string, fetch: () => Promise<T>, options: ListOptions = {}): Promise<T> {
  if (options.fresh) return freshList(key, fetch);
  return processRuntime().lists.run(key, fetch, options.maxAgeMs);
}

/**
 * A list whose request was sent after this call began (what a read needs to call an object gone,
 * and a create whose answer was lost to see what it made), shared with the callers of the same
 * kind that arrive before it is sent (the gathering window, `FRESH_LIST_GATHER` in
 * process-runtime.ts) or while the previous one is in flight: a burst of lost answers lists once
 * or twice, not once each. The window is waited only while other writes to the service are under
 * way in this process (a stack being deployed): a caller alone (one resource, `--parallel 1`)
 * sends its list at once. `inWrite`: the caller is a write itself (a create), so one write under
 * way is its own.
 */
export function freshList<T>(key: string, fetch: () => Promise<T>, inWrite = false): Promise<T> {
  const others = (writesUnderWay().get(serviceOf(key)) ?? 0) - (inWrite ? 1 : 0);
  return processRuntime().lists.runStartedAfterCall(key, fetch, others > 0);
}

/** The service and key a list key is of: the key without its last part, the kind (transport.ts). */
function serviceOf(listKey: string): string {
  return listKey.slice(0, listKey.lastIndexOf("#"));
}

/** Writes under way in this process, per service and key. */
function writesUnderWay(): Map<string, number> {
  return processRuntime().writesUnderWay;
}

/** The kinds of list a write may change. */
export interface ListKinds {
  domains: Domain;
  routes: Route;
}
export type ListKind = keyof ListKinds;

/**
 * What a write changes: for each kind of list it changes, what its answer did to that list
 * (list-patches.ts).
 */
export type ListChanges<T> = { [K in ListKind]?: (answer: T) => ListPatch<ListKinds[K]> };

/**
 * Runs a write and applies what it did to every shared list of the kinds it changes, in flight or
 * settled (write-through): a write that answered patches them; one that failed (its outcome may be
 * unknown: a lost answer) makes them forgotten. `keyOf` is asked before and after: a write that
 * switched to the fallback key changed that key's lists too (the same server's objects).
 */
export async function writeThrough<T>(
  keyOf: (kind: ListKind) => string,
  run: () => Promise<T>,
  changes: ListChanges<T>,
): Promise<T> {
  const kinds = Object.keys(changes) as ListKind[];
  const keys = () => kinds.map((kind) => ({ kind, key: keyOf(kind) }));
  const before = keys();
  const service = serviceOf(before[0].key);
  const underWay = writesUnderWay();
  underWay.set(service, (underWay.get(service) ?? 0) + 1);
  const touched = () =>
    [...before, ...keys()].filter((a, i, all) => all.findIndex((b) => b.key === a.key) === i);
  let answer: T;
  try {
    answer = await run();
  } catch (error) {
    const lists = processRuntime().lists;
    for (const { key } of touched()) lists.invalidate(key);
    throw error;
  } finally {
    const left = (underWay.get(service) ?? 1) - 1;
    if (left > 0) underWay.set(service, left);
    else underWay.delete(service);
  }
  const lists = processRuntime().lists;
  for (const { kind, key } of touched()) {
    const patch = changes[kind]!(answer) as ListPatch<unknown>;
    lists.patch(key, (list) => patch(list as readonly unknown[]));
  }
  return answer;
}
