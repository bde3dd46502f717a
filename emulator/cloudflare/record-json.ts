import { CloudflareDnsRecord } from "../store/state";
import { isProxiable } from "./record-input";

/**
 * A stored record as the v4 API returns it (its DNS-record schema). The provider diffs on
 * these, so: `proxied` always a boolean, `comment` null and `tags` [] when none, `priority` only on
 * MX, the `*_modified_on` stamps only when there is a comment / are tags, no zone_id/zone_name.
 */
export function recordJson(record: CloudflareDnsRecord): Record<string, unknown> {
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
