import { processRuntime } from "./process-runtime";
import type { ListOptions } from "./settings";

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

/**
 * Runs a write, making every client in the process forget the lists it changes, before and after.
 * `keys` is asked each time: a write that switched to the fallback key changed that key's lists.
 */
export async function writeChanging<T>(keys: () => readonly string[], run: () => Promise<T>): Promise<T> {
  const lists = processRuntime().lists;
  const invalidate = () => keys().forEach((key) => lists.invalidate(key));
  invalidate();
  try {
    return await run();
  } finally {
    invalidate();
  }
}
