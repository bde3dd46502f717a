import { CloudflareDnsRecord } from "../store/state";
import { isProxiable } from "./record-input";

/** A DNS record as Cloudflare's v4 API answers it (`result` of a create, an item of a list). */
export interface CloudflareRecordJson {
  /** 32 lowercase hex characters. */
  id: string;
  /** The fully qualified name, lowercase, without a trailing dot. */
  name: string;
  type: string;
  content: string;
  /** MX records only. */
  priority?: number | null;
  proxiable: boolean;
  proxied: boolean;
  /** Seconds; 1 is "automatic". */
  ttl: number;
  settings: Record<string, unknown>;
  meta: Record<string, never>;
  comment: string | null;
  tags: string[];
  created_on: string;
  modified_on: string;
  comment_modified_on?: string;
  tags_modified_on?: string;
}

/**
 * A stored record as the v4 API returns it (its DNS-record schema). The provider diffs on
 * these, so: `proxied` always a boolean, `comment` null and `tags` [] when none, `priority` only on
 * MX, the `*_modified_on` stamps only when there is a comment / are tags, no zone_id/zone_name.
 */
export function recordJson(record: CloudflareDnsRecord): CloudflareRecordJson {
  return {
    id: record.id,
    name: record.name,
    type: record.type,
    content: record.content,
    ...(record.type === "MX" && { priority: record.priority }),
    proxiable: isProxiable(record.type),
    proxied: record.proxied,
    ttl: record.ttl,
    settings: record.settings,
    meta: {},
    comment: record.comment,
    tags: record.tags,
    created_on: record.createdOn,
    modified_on: record.modifiedOn,
    ...(record.comment !== null &&
      record.commentModifiedOn && { comment_modified_on: record.commentModifiedOn }),
    ...(record.tags.length > 0 && record.tagsModifiedOn && { tags_modified_on: record.tagsModifiedOn }),
  };
}
