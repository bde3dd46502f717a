import { z } from "zod";
import type { ListPage, Pagination } from "./pages";

/**
 * Lenient parsers for what the service returns: unknown fields are dropped, unknown enum values
 * are kept as strings, ids given as digit strings are accepted, and list/create answers wrapped
 * the way some deployments wrap them (`{domains: [...]}`, `{domain: {...}}`) are unwrapped. Each
 * resource's parsers sit in its own module (domains.ts, routes.ts, messages.ts) with the encoders
 * of its requests; this one holds the fields they share and the list pages.
 */

/** An id: a number, or digits in a string. */
export const id = z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]);

/** An id the service may leave out or send as null (read as null). */
export const optionalId = id.nullish().transform((value) => value ?? null);

/** A text the service may leave out or send as null (read as null). */
export const text = z
  .string()
  .nullish()
  .transform((value) => value ?? null);

/** A check's status: whatever the service says, as a string; null when it says nothing. */
export const status = z
  .union([z.string(), z.number(), z.boolean()])
  .nullish()
  .transform((value) => (value === null || value === undefined ? null : String(value)));

/** An answer that may come wrapped in an object under `key` (`{route: {...}}`), unwrapped. */
export function unwrapped<T>(key: string, schema: z.ZodType<T>) {
  return z.preprocess(
    (value) =>
      typeof value === "object" && value !== null && !Array.isArray(value) && key in value
        ? (value as Record<string, unknown>)[key]
        : value,
    schema,
  );
}

/**
 * A list answer: Postal's bare array, or a fork's `{<key>: [...], pagination: {...}}`, or the
 * same words beside the list instead of under `pagination`.
 */
export function listPage<T>(key: string, item: z.ZodType<T>) {
  return z.preprocess(
    (value) => {
      if (Array.isArray(value)) return { [key]: value };
      if (typeof value !== "object" || value === null || "pagination" in value) return value;
      const beside = Object.fromEntries(
        Object.entries(value).filter(([name]) => PAGINATION_KEYS.includes(name)),
      );
      return Object.keys(beside).length ? { ...value, pagination: beside } : value;
    },
    z.object({ [key]: z.array(item), pagination: pagination.nullish() }).transform((raw): ListPage<T> => {
      const page: ListPage<T> = { items: raw[key] as T[] };
      if (raw.pagination) page.pagination = raw.pagination as Pagination;
      return page;
    }),
  );
}

const count = z
  .union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)])
  .nullish()
  .transform((value) => value ?? undefined);

const pagination = z
  .object({
    page: count,
    current_page: count,
    per_page: count,
    total_pages: count,
    total: count,
    total_count: count,
    // null (or false) on the last page says "no next page"; only an absent key says nothing.
    next_page: z
      .union([z.number().int().nonnegative(), z.string().regex(/^\d+$/).transform(Number)])
      .or(z.union([z.null(), z.literal(false)]).transform(() => null))
      .optional(),
  })
  .transform((raw): Pagination => ({
    page: raw.page ?? raw.current_page,
    perPage: raw.per_page,
    totalPages: raw.total_pages,
    total: raw.total_count ?? raw.total,
    // Only a present key says anything: a missing `next_page` is not "no next page".
    ...(raw.next_page !== undefined ? { nextPage: raw.next_page } : {}),
  }));

/** The words deployments use for a list's pagination. */
const PAGINATION_KEYS = [
  "page",
  "current_page",
  "per_page",
  "total_pages",
  "total",
  "total_count",
  "next_page",
];
