import { EmailApiError, EmailApiErrorDetails } from "./errors";

/**
 * Paged lists. Postal answers a list with every object at once; a fork wraps it as
 * `{domains: [...], pagination: {current_page, per_page, total_pages, total_count}}` and sends one
 * page (30 by default). A list read as complete when it is not makes an object on a later page look
 * deleted, and a refresh would then drop it from state. So a list that says there is more is read
 * to the end, one that changes while it is read is read again, and one whose pages cannot be
 * followed is refused, never taken as complete.
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

/** Where a list read stands before its next step. */
export interface PagingContext {
  /** The page just read (1-based; page 1 is asked for without a page parameter). */
  requested: number;
  /** Pages read so far in this read, the one just read included. */
  pagesRead: number;
  /** Objects collected so far, this page's included. */
  collected: number;
  /** The total page 1 reported, if any. */
  firstTotal: number | undefined;
  /** Page numbers read so far. */
  visited: ReadonlySet<number>;
}

export type PageStep =
  | { next: "done" }
  | { next: "page"; page: number; perPage?: number }
  /** Read again from page 1: the list changed while it was being read. */
  | { next: "restart"; reason: string }
  | { next: "refuse"; reason: string };

/** Pages one list may take; far beyond any real account, but a loop must end. */
export const MAX_PAGES = 1000;

/** What to do after a page, given where the read stands. */
export function nextPageStep(page: ListPage<unknown>, at: PagingContext): PageStep {
  const p = page.pagination;
  if (!p) return { next: "done" }; // a plain array: the whole list, as Postal sends it
  const { requested, collected, firstTotal } = at;
  if (p.page !== undefined && p.page !== requested) {
    return {
      next: "refuse",
      reason: `page ${requested} was asked for but page ${p.page} came back (does the service accept a \`page\` parameter?)`,
    };
  }
  if (p.totalPages !== undefined && page.items.length > 0 && requested > p.totalPages) {
    return {
      next: "refuse",
      reason: `the service counts ${p.totalPages} pages but page ${requested} holds objects`,
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
  if (p.perPage !== undefined && page.items.length < p.perPage) {
    return {
      next: "restart",
      reason: `page ${requested} is short of ${p.perPage} objects but is not the last`,
    };
  }
  const next = p.nextPage ?? requested + 1;
  if (at.visited.has(next)) return { next: "refuse", reason: `the pages lead back to page ${next}` };
  if (at.pagesRead >= MAX_PAGES)
    return { next: "refuse", reason: `the list goes on past ${MAX_PAGES} pages` };
  return { next: "page", page: next, perPage: p.perPage };
}

/** The first id that appears twice, if any: a page read twice, or a list that moved while paged. */
export function repeatedId(items: readonly { id: number }[]): number | undefined {
  const seen = new Set<number>();
  for (const { id } of items) {
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}

/**
 * A paged list that could not be read to its end (`IncompleteList`), with every object its pages
 * did show: enough to prove an object is there, never that one is not.
 */
export class IncompleteListError<T> extends EmailApiError {
  constructor(
    details: EmailApiErrorDetails,
    /** The objects the pages read showed, every try's. */
    readonly shown: readonly T[],
  ) {
    super(details);
  }
}

/**
 * A whole list, following its pages when the answer is paged, through `readPage` (one request for
 * one page, `{}` for the first). A list that changes while it is paged is read again from the
 * start, twice at most; one whose pages cannot be followed is refused (`IncompleteList`).
 */
export async function readWholeList<T extends { id: number }>(
  operation: string,
  readPage: (body: Record<string, unknown>) => Promise<ListPage<T>>,
): Promise<T[]> {
  const shown: T[] = [];
  for (let restarts = 0; ; restarts++) {
    const first = await readPage({});
    const items = [...first.items];
    const visited = new Set([1]);
    const at = (requested: number): PagingContext => ({
      requested,
      pagesRead: visited.size,
      collected: items.length,
      firstTotal: first.pagination?.total,
      visited,
    });
    let step = nextPageStep(first, at(1));
    while (step.next === "page") {
      const requested = step.page;
      const page = await readPage(
        step.perPage ? { page: requested, per_page: step.perPage } : { page: requested },
      );
      visited.add(requested);
      items.push(...page.items);
      step = nextPageStep(page, at(requested));
    }
    const repeated = step.next === "done" && visited.size > 1 ? repeatedId(items) : undefined;
    if (repeated !== undefined) {
      step = { next: "restart", reason: `object ${repeated} came back on two pages` };
    }
    if (step.next === "done") return items;
    shown.push(...items);
    if (step.next === "refuse" || restarts === 2) {
      throw new IncompleteListError(
        {
          operation,
          kind: "validation",
          code: "IncompleteList",
          serviceMessage: `the list is paged and could not be read to its end: ${step.reason}; nothing is read as deleted from a partial list`,
        },
        shown,
      );
    }
  }
}
