/** Removes matching items in place, so every holder of the store's arrays sees the change. */
export function removeWhere<T>(items: T[], predicate: (item: T) => boolean): T[] {
  const removed: T[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    if (predicate(items[i])) removed.unshift(...items.splice(i, 1));
  }
  return removed;
}
