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
  const hostTarget = type === "CNAME" || type === "MX";
  return {
    zoneId: options.zoneId,
    name: record.name.toLowerCase().replace(/\.$/, ""),
    type,
    content:
      type === "TXT" ? quoteTxt(record.content) : hostTarget ? record.content.toLowerCase() : record.content,
    ttl: options.ttl,
    proxied: false,
    ...(type === "MX" ? { priority: record.priority ?? 10 } : {}),
    comment: options.comment,
  };
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
