import type { ListPatch } from "./list-patches";
import { processRuntime } from "./process-runtime";
import type { ListOptions } from "./settings";
import type { Domain, Route } from "./types";

/**
 * Lists shared process-wide (across separately serialized providers too), by key: one per base
 * URL, API key and kind, since only those clients get the same answer.
 */

/** A shared list: a fresh one (see `ListOptions.fresh`), or one at most `maxAgeMs` old. */
export function sharedList<T>(key: string, fetch: () => Promise<T>, options: ListOptions = {}): Promise<T> {
  if (options.fresh) return freshList(key, fetch);
  return processRuntime().lists.run(key, fetch, options.maxAgeMs);
}

/**
 * A list whose request was sent after this call began (the proof a create needs), shared with the
 * creates of the same kind that start meanwhile: a burst of creates lists twice, not once each.
 */
export function freshList<T>(key: string, fetch: () => Promise<T>): Promise<T> {
  return processRuntime().lists.runStartedAfterCall(key, fetch);
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
  const touched = () =>
    [...before, ...keys()].filter((a, i, all) => all.findIndex((b) => b.key === a.key) === i);
  let answer: T;
  try {
    answer = await run();
  } catch (error) {
    const lists = processRuntime().lists;
    for (const { key } of touched()) lists.invalidate(key);
    throw error;
  }
  const lists = processRuntime().lists;
  for (const { kind, key } of touched()) {
    const patch = changes[kind]!(answer) as ListPatch<unknown>;
    lists.patch(key, (list) => patch(list as readonly unknown[]));
  }
  return answer;
}
