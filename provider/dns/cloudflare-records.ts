import type { DnsRecord } from "../client";
import { quoteTxt } from "./txt";

/** What every record of a domain shares in Cloudflare. */
export interface CloudflareRecordOptions {
  zoneId: string;
  /** 1 (automatic) or 60 to 86400 seconds (see `ttlProblem` in `inputs/`). */
  ttl: number;
  /** Undefined for none. */
  comment: string | undefined;
}

/** The `cloudflare.DnsRecord` arguments for one of the service's records. */
export interface CloudflareRecordArgs {
  zoneId: string;
  name: string;
  type: string;
  content: string;
  ttl: number;
  proxied: false;
  priority?: number;
  comment: string | undefined;
}

/**
 * Maps a record the service asks for onto what Cloudflare stores, so nothing drifts: names and
 * host targets lowercase (Cloudflare lowercases them), TXT quoted and split, never proxied
 * (a proxied record would answer with Cloudflare's addresses and fail the check), explicit TTL.
 * The `Domain` component maps a record it knows only as an output field by field with the same
 * helpers (`resources/publishing/domain-publisher.ts`); this module imports no value of `@pulumi/pulumi`, so the
 * providers' entry, which loads it, never loads the SDK's index.
 */
export function cloudflareRecordArgs(
  record: DnsRecord,
  options: CloudflareRecordOptions,
): CloudflareRecordArgs {
  const type = record.type.toUpperCase();
  return {
    zoneId: options.zoneId,
    name: cloudflareName(record),
    type,
    content: cloudflareContent(record),
    ttl: options.ttl,
    proxied: false,
    ...(type === "MX" ? { priority: cloudflarePriority(record) } : {}),
    comment: options.comment,
  };
}

/** The record's name as Cloudflare returns it: the FQDN, lowercase, without a trailing dot. */
export function cloudflareName(record: DnsRecord): string {
  return record.name.toLowerCase().replace(/\.$/, "");
}

/** The record's content as Cloudflare stores it: TXT quoted and split, host targets lowercase. */
export function cloudflareContent(record: DnsRecord): string {
  const type = record.type.toUpperCase();
  if (type === "TXT") return quoteTxt(record.content);
  return type === "CNAME" || type === "MX" ? record.content.toLowerCase() : record.content;
}

/** An MX record's priority: the service's, else 10 (Cloudflare needs one for every MX record). */
export function cloudflarePriority(record: DnsRecord): number {
  return record.priority ?? 10;
}

/** Child resource names by purpose, so they stay the same from run to run: `mail-spf`, `mail-mx-0`. */
export function recordResourceName(component: string, purpose: string, index?: number): string {
  const slug = purpose.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return index === undefined ? `${component}-${slug}` : `${component}-${slug}-${index}`;
}
