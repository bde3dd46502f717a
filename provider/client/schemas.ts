import { z } from "zod";
import type { ListPage, Pagination } from "./pages";
import type { CreatedServer, DnsRecord, Domain, DomainCheck, Route, SentMessage } from "./types";

/**
 * Lenient parsers for what the service returns: unknown fields are dropped, unknown enum values
 * are kept as strings, ids given as digit strings are accepted, and list/create answers wrapped
 * the way some deployments wrap them (`{domains: [...]}`, `{domain: {...}}`) are unwrapped.
 *
 * Built on demand, never at module load: a zod schema at the top level of a local module breaks
 * Pulumi's closure serialization of any dynamic provider that imports it (README, "The stored
 * provider text").
 */
export function responseSchemas() {
  const id = z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]);
  const optionalId = id.nullish().transform((value) => value ?? null);
  const text = z
    .string()
    .nullish()
    .transform((value) => value ?? null);
  const status = z
    .union([z.string(), z.number(), z.boolean()])
    .nullish()
    .transform((value) => (value === null || value === undefined ? null : String(value)));

  const domainShape = {
    id,
    uuid: z.string().nullish(),
    name: z.string(),
    spf_status: status,
    dkim_status: status,
    mx_status: status,
    return_path_status: status,
    created_at: text,
  };
  type RawDomain = z.infer<z.ZodObject<typeof domainShape>>;
  const toDomain = (raw: RawDomain): Domain => ({
    id: raw.id,
    uuid: raw.uuid ?? "",
    name: raw.name,
    spfStatus: raw.spf_status,
    dkimStatus: raw.dkim_status,
    mxStatus: raw.mx_status,
    returnPathStatus: raw.return_path_status,
    createdAt: raw.created_at,
  });
  const domain = z.object(domainShape).transform(toDomain);

  const dnsRecord = z
    .object({
      purpose: z.string(),
      type: z.string(),
      name: z.string(),
      value: z.string().optional(),
      content: z.string().optional(),
      priority: z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).nullish(),
    })
    .refine((raw) => raw.value !== undefined || raw.content !== undefined, { message: "value is missing" })
    .transform((raw): DnsRecord => ({
      purpose: raw.purpose.toLowerCase(),
      type: raw.type.toUpperCase(),
      name: raw.name,
      content: (raw.value ?? raw.content) as string,
      ...(raw.priority !== null && raw.priority !== undefined ? { priority: raw.priority } : {}),
    }));

  const route = z
    .object({
      id,
      uuid: z.string().nullish(),
      name: z.string(),
      domain_id: optionalId,
      endpoint_id: optionalId,
      mode: z.string().nullish(),
      spam_mode: z.string().nullish(),
    })
    .transform((raw): Route => ({
      id: raw.id,
      uuid: raw.uuid ?? "",
      name: raw.name,
      domainId: raw.domain_id,
      endpointId: raw.endpoint_id,
      mode: raw.mode ?? "Endpoint",
      spamMode: raw.spam_mode ?? "Mark",
    }));

  const check = z
    .object({
      spf_status: status,
      spf_error: text,
      dkim_status: status,
      dkim_error: text,
      mx_status: status,
      mx_error: text,
      return_path_status: status,
      return_path_error: text,
    })
    .transform((raw): DomainCheck => ({
      spfStatus: raw.spf_status,
      spfError: raw.spf_error,
      dkimStatus: raw.dkim_status,
      dkimError: raw.dkim_error,
      mxStatus: raw.mx_status,
      mxError: raw.mx_error,
      returnPathStatus: raw.return_path_status,
      returnPathError: raw.return_path_error,
    }));

  const unwrap = (key: string) => (value: unknown) =>
    typeof value === "object" && value !== null && !Array.isArray(value) && key in value
      ? (value as Record<string, unknown>)[key]
      : value;

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
  /**
   * A list answer: Postal's bare array, or a fork's `{<key>: [...], pagination: {...}}`, or the
   * same words beside the list instead of under `pagination`.
   */
  const listPage = <T>(key: string, item: z.ZodType<T>) =>
    z.preprocess(
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

  const createdDomain = z.preprocess(
    (value) => {
      // Some deployments answer `{domain: {...}, dns_records: [...]}`: flatten it.
      if (typeof value !== "object" || value === null || !("domain" in value)) return value;
      const wrapped = value as { domain: unknown; dns_records?: unknown };
      return typeof wrapped.domain === "object" && wrapped.domain !== null
        ? { dns_records: wrapped.dns_records, ...wrapped.domain }
        : value;
    },
    z.object({ ...domainShape, dns_records: z.array(dnsRecord).nullish() }).transform((raw) => ({
      domain: toDomain(raw),
      dnsRecords: raw.dns_records ?? undefined,
    })),
  );

  const sentMessage = z
    .object({
      message_id: z.string(),
      messages: z.record(z.string(), z.object({ id, token: z.string() })).default({}),
    })
    .transform((raw): SentMessage => ({ messageId: raw.message_id, messages: raw.messages }));

  const createdServer = z
    .object({
      id: id.optional(),
      uuid: z.string().optional(),
      name: z.string(),
      permalink: z.string().optional(),
      mode: z.string().optional(),
      api_key: z.string().optional(),
      smtp_key: z.string().optional(),
    })
    .transform((raw): CreatedServer => ({
      id: raw.id,
      uuid: raw.uuid,
      name: raw.name,
      permalink: raw.permalink,
      mode: raw.mode,
      apiKey: raw.api_key,
      smtpKey: raw.smtp_key,
    }));

  return {
    domain,
    domainList: listPage("domains", domain),
    createdDomain,
    route,
    routeList: listPage("routes", route),
    routeAnswer: z.preprocess(unwrap("route"), route),
    check,
    sentMessage,
    createdServer,
  };
}

export type ResponseSchemas = ReturnType<typeof responseSchemas>;

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
