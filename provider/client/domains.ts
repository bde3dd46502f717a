import { z } from "zod";
import { id, listPage, status, text } from "./schemas";
import type { DnsRecord, Domain, DomainCheck } from "./types";

// Parsers of the service's domain answers (`domains/list`, `domains/create`, `domains/check`).

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

function toDomain(raw: z.infer<z.ZodObject<typeof domainShape>>): Domain {
  return {
    id: raw.id,
    uuid: raw.uuid ?? "",
    name: raw.name,
    spfStatus: raw.spf_status,
    dkimStatus: raw.dkim_status,
    mxStatus: raw.mx_status,
    returnPathStatus: raw.return_path_status,
    createdAt: raw.created_at,
  };
}

/** A domain as `domains/list` answers it. */
export const domainSchema = z.object(domainShape).transform(toDomain);

/** One page of `domains/list`. */
export const domainListSchema = listPage("domains", domainSchema);

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

/** `domains/create`'s answer: the domain and the DNS records it needs. */
export const createdDomainSchema = z.preprocess(
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

/** `domains/check`'s answer. */
export const domainCheckSchema = z
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
