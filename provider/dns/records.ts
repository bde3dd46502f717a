import type { DnsRecord } from "../client";
import { quoteTxt } from "./txt";

/** The `cloudflare.DnsRecord` arguments for one of the service's records. */
export interface CloudflareRecordArgs {
  zoneId: string;
  name: string;
  type: string;
  content: string;
  ttl: number;
  proxied: false;
  priority?: number;
  comment: string;
}

/**
 * Maps a record the service asks for onto what Cloudflare stores, so nothing drifts: names and
 * host targets lowercase (Cloudflare lowercases them), TXT quoted and split, never proxied
 * (a proxied record would answer with Cloudflare's addresses and fail the check), explicit TTL.
 */
export function cloudflareRecordArgs(
  record: DnsRecord,
  options: { zoneId: string; ttl: number; comment: string },
): CloudflareRecordArgs {
  const type = record.type.toUpperCase();
  return {
    zoneId: options.zoneId,
    name: cloudflareName(record),
    type,
    content: cloudflareContent(record),
    ttl: options.ttl,
    proxied: false,
    ...(type === "MX" ? { priority: record.priority ?? 10 } : {}),
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

/** Cloudflare accepts 1 (automatic) or 60 to 86400 seconds. */
export function ttlProblem(ttl: number): string | undefined {
  if (ttl === 1 || (Number.isInteger(ttl) && ttl >= 60 && ttl <= 86400)) return undefined;
  return `must be 1 (automatic) or a whole number of seconds from 60 to 86400, not ${ttl}`;
}

/** Child resource names by purpose, so they stay the same from run to run: `mail-spf`, `mail-mx-0`. */
export function recordResourceName(component: string, purpose: string, index?: number): string {
  const slug = purpose.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return index === undefined ? `${component}-${slug}` : `${component}-${slug}-${index}`;
}
