import { ResultInfo } from "./envelope";
import { cloudflareErrors } from "./errors";

/**
 * `page` / `per_page` as Cloudflare reads them. A page past the end is an empty `result`, which
 * is how the provider's auto-pager (getDnsRecords) knows it is done. A `per_page` outside the
 * documented range, or either one that is not a positive whole number, is refused (400, 9201:
 * see `cloudflareErrors.invalidListParameter`), never clamped: a client that asks for more than
 * a page may hold must learn it, not read a short page as the whole.
 */
export interface PageRequest {
  page: number;
  perPage: number;
}

export function readPageRequest(
  query: URLSearchParams,
  limits: { defaultPerPage: number; minPerPage: number; maxPerPage: number },
): PageRequest {
  const pageText = query.get("page");
  const page = pageText === null ? 1 : positiveInteger(pageText);
  if (page === undefined) throw cloudflareErrors.invalidListParameter("page must be a positive integer.");
  const perPageText = query.get("per_page");
  const perPage = perPageText === null ? limits.defaultPerPage : positiveInteger(perPageText);
  if (perPage === undefined || perPage < limits.minPerPage || perPage > limits.maxPerPage) {
    throw cloudflareErrors.invalidListParameter(
      `per_page must be an integer between ${limits.minPerPage} and ${limits.maxPerPage}.`,
    );
  }
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
