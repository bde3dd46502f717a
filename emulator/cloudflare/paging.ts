import { ResultInfo } from "./envelope";

/**
 * `page` / `per_page` as Cloudflare reads them. A page past the end is an empty `result`, which
 * is how the provider's auto-pager (getDnsRecords) knows it is done.
 */
export interface PageRequest {
  page: number;
  perPage: number;
}

export function readPageRequest(
  query: URLSearchParams,
  limits: { defaultPerPage: number; minPerPage: number; maxPerPage: number },
): PageRequest {
  const page = positiveInteger(query.get("page")) ?? 1;
  const requested = positiveInteger(query.get("per_page")) ?? limits.defaultPerPage;
  // Out-of-range sizes are clamped to the documented bounds rather than refused.
  const perPage = Math.min(Math.max(requested, limits.minPerPage), limits.maxPerPage);
  return { page, perPage };
}

export function paginate<T>(items: T[], request: PageRequest): { items: T[]; info: ResultInfo } {
  const start = (request.page - 1) * request.perPage;
  const pageItems = items.slice(start, start + request.perPage);
  return {
    items: pageItems,
    info: {
      page: request.page,
      per_page: request.perPage,
      count: pageItems.length,
      total_count: items.length,
      total_pages: Math.ceil(items.length / request.perPage),
    },
  };
}

/** Stable sort by a key, ascending or descending; no key keeps creation order. */
export function sortBy<T>(
  items: T[],
  key: ((item: T) => string | number) | undefined,
  direction: string | null,
): T[] {
  if (!key) return direction === "desc" ? [...items].reverse() : items;
  const sign = direction === "desc" ? -1 : 1;
  return [...items].sort((a, b) => {
    const left = key(a);
    const right = key(b);
    return left < right ? -sign : left > right ? sign : 0;
  });
}

function positiveInteger(text: string | null): number | undefined {
  if (text === null || !/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= 1 ? value : undefined;
}
