/**
 * Paged lists. Postal answers a list with every object at once; a fork wraps it as
 * `{domains: [...], pagination: {current_page, per_page, total_pages, total_count}}` and sends one
 * page (30 by default). A list read as complete when it is not makes an object on a later page look
 * deleted, and a refresh would then drop it from state. So a list that says there is more is read
 * to the end, and one whose pages cannot be followed is refused, never taken as complete.
 */

/** What an answer said about its page, in any of the names deployments use. */
export interface Pagination {
  page?: number;
  perPage?: number;
  totalPages?: number;
  total?: number;
  /** The next page's number, when the answer names one; null on the last page. */
  nextPage?: number | null;
}

/** One page as parsed: its objects, and its pagination when the answer had one. */
export interface ListPage<T> {
  items: T[];
  pagination?: Pagination;
}

export type PageStep =
  | { next: "done" }
  | { next: "page"; page: number; perPage?: number }
  /** Read again from page 1: the list changed while it was being read. */
  | { next: "restart"; reason: string }
  | { next: "refuse"; reason: string };

/** Pages one list may take; far beyond any real account, but a loop must end. */
export const MAX_PAGES = 1000;

/**
 * What to do after page `requested` (1-based; page 1 is asked for without a page parameter),
 * having collected `collected` objects so far, page 1's total being `firstTotal`.
 */
export function nextPageStep(
  page: ListPage<unknown>,
  requested: number,
  collected: number,
  firstTotal: number | undefined,
): PageStep {
  const p = page.pagination;
  if (!p) return { next: "done" }; // a plain array: the whole list, as Postal sends it
  if (p.page !== undefined && p.page !== requested) {
    return {
      next: "refuse",
      reason: `page ${requested} was asked for but page ${p.page} came back (does the service accept a \`page\` parameter?)`,
    };
  }
  if (p.total !== undefined && firstTotal !== undefined && p.total !== firstTotal) {
    return { next: "restart", reason: `the total went from ${firstTotal} to ${p.total} while paging` };
  }
  const more =
    (p.nextPage !== undefined && p.nextPage !== null) ||
    (p.totalPages !== undefined && requested < p.totalPages) ||
    (p.total !== undefined && collected < p.total && page.items.length > 0);
  if (!more) {
    if (p.total !== undefined && collected !== p.total) {
      return { next: "restart", reason: `${collected} objects were read but the service counts ${p.total}` };
    }
    const known =
      p.totalPages !== undefined ||
      p.total !== undefined ||
      p.nextPage !== undefined ||
      (p.perPage !== undefined && page.items.length < p.perPage);
    return known
      ? { next: "done" }
      : { next: "refuse", reason: "the answer is paged but does not say how many pages there are" };
  }
  if (requested >= MAX_PAGES) {
    return { next: "refuse", reason: `the list goes on past ${MAX_PAGES} pages` };
  }
  return { next: "page", page: p.nextPage ?? requested + 1, perPage: p.perPage };
}
