import { CloudflareDnsRecord } from "../store/state";
import { isProxiable } from "./record-input";

/** A DNS record as Cloudflare's v4 API answers it (`result` of a create, an item of a list). */
export interface CloudflareRecordJson {
  /** 32 lowercase hex characters. */
  id: string;
  /** The fully qualified name, lowercase, without a trailing dot. */
  name: string;
  /** The record type (`TXT`, `MX`, `CNAME`, …). */
  type: string;
  /** The record's content, as stored (TXT content quoted or bare, as written). */
  content: string;
  /** MX records only. */
  priority?: number | null;
  /** Whether Cloudflare could proxy a record of this type (A, AAAA, CNAME). */
  proxiable: boolean;
  /** Whether Cloudflare proxies it. */
  proxied: boolean;
  /** Seconds; 1 is "automatic". */
  ttl: number;
  /** Absent on a DNS-only CNAME with nothing set (see `settingsJson`). */
  settings?: Record<string, unknown>;
  /** `{}`, plus the shadow fields when the list asks for them (`record-shadows.ts`). */
  meta: Record<string, unknown>;
  /** The record's comment; null when none. */
  comment: string | null;
  /** The record's tags (`name:value`); empty when none. */
  tags: string[];
  /** When it was created (ISO 8601). */
  created_on: string;
  /** When it was last changed (ISO 8601). */
  modified_on: string;
  /** When its comment was last changed; only when it has one. */
  comment_modified_on?: string;
  /** When its tags were last changed; only when it has some. */
  tags_modified_on?: string;
}

/**
 * A stored record as the v4 API returns it (its DNS-record schema). The provider diffs on
 * these, so: `proxied` always a boolean, `comment` null and `tags` [] when none, `priority` only on
 * MX, the `*_modified_on` stamps only when there is a comment / are tags, no zone_id/zone_name.
 * `meta` is `{}` plus, when asked for, the shadow fields (`record-shadows.ts`).
 */
export function recordJson(
  record: CloudflareDnsRecord,
  meta: Record<string, unknown> = {},
): CloudflareRecordJson {
  return {
    id: record.id,
    name: record.name,
    type: record.type,
    content: record.content,
    ...(record.type === "MX" && { priority: record.priority }),
    proxiable: isProxiable(record.type),
    proxied: record.proxied,
    ttl: record.ttl,
    ...settingsJson(record),
    meta,
    comment: record.comment,
    tags: record.tags,
    created_on: record.createdOn,
    modified_on: record.modifiedOn,
    ...(record.comment !== null &&
      record.commentModifiedOn && { comment_modified_on: record.commentModifiedOn }),
    ...(record.tags.length > 0 && record.tagsModifiedOn && { tags_modified_on: record.tagsModifiedOn }),
  };
}

/**
 * `settings` as Cloudflare answers it: what was set, and for a proxied CNAME `flatten_cname`
 * false unless set (seen in list answers: `"settings":{"flatten_cname":false}` on proxied CNAMEs,
 * `{}` on A, MX and NS records). An unproxied CNAME with nothing set has no `settings` at all
 * (terraform-provider-cloudflare v5.19.1 `internal/services/dns_record/resource.go`, `Read`: "the
 * Cloudflare API omits the settings object entirely for non-proxied CNAME records").
 */
function settingsJson(record: CloudflareDnsRecord): { settings?: Record<string, unknown> } {
  if (record.type !== "CNAME") return { settings: { ...record.settings } };
  if (record.proxied) return { settings: { flatten_cname: false, ...record.settings } };
  return Object.keys(record.settings).length > 0 ? { settings: { ...record.settings } } : {};
}
