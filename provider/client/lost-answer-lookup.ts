import { withDetails } from "./errors";
import { lookupCutShort } from "./natural-keys";
import { IncompleteListError } from "./pages";
import { freshList } from "./shared-lists";

/**
 * The object `match` finds in a list sent after a create's answer was lost, shared with the
 * lookups of other creates that lost theirs meanwhile (a network blip loses many at once): one list
 * answers them all. Lookups share lists only among themselves (`listKey` is a kind of its own, as
 * `domains looked up`): each sends one request per try (`fetch`), counted against its create's
 * attempts, and a list shared with a refresh or a create naming a holder would hand those callers
 * the lookup's single try. This caller waits `timeoutMs` at most, what is left of its try, however
 * long the list it joined may take. A list that changed while it was paged still proves an object
 * its pages showed is there, never that one is not. A wait cut short, or an absence such a list
 * cannot prove, is transient: the create looks again later, never sends again without knowing.
 */
export async function lookUpAfterLostAnswer<T>(
  listKey: string,
  fetch: () => Promise<T[]>,
  timeoutMs: number,
  match: (listed: readonly T[]) => T | undefined,
): Promise<T | undefined> {
  const operation = `${listKey.slice(listKey.lastIndexOf("#") + 1).split(" ")[0]}/list`;
  let timer: NodeJS.Timeout | undefined;
  const cutShort = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(lookupCutShort(operation, timeoutMs)), timeoutMs);
  });
  try {
    return match(await Promise.race([freshList(listKey, fetch, true), cutShort]));
  } catch (error) {
    if (!(error instanceof IncompleteListError)) throw error;
    const found = match(error.shown as T[]);
    if (found === undefined) throw withDetails(error, { kind: "transient" });
    return found;
  } finally {
    clearTimeout(timer);
  }
}
