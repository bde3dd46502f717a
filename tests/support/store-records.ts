import type { CloudflareDnsRecord, ZoneRecord } from "../../emulator/store/state";
import type { Store } from "../../emulator/store/store";

let sequence = 0;

/**
 * Puts a record straight into an emulator store, as its Cloudflare stand-in would have stored it
 * (ids unique across the test file, TTL automatic, not proxied unless `fields` say so).
 */
export function storeRecord(
  store: Store,
  zone: ZoneRecord,
  fields: Partial<CloudflareDnsRecord> & Pick<CloudflareDnsRecord, "name" | "type" | "content">,
): CloudflareDnsRecord {
  const now = new Date().toISOString();
  const record: CloudflareDnsRecord = {
    id: (++sequence).toString(16).padStart(32, "0"),
    zoneId: zone.id,
    ttl: 1,
    proxied: false,
    priority: null,
    comment: null,
    tags: [],
    settings: {},
    createdOn: now,
    modifiedOn: now,
    commentModifiedOn: null,
    tagsModifiedOn: null,
    ...fields,
  };
  store.state.cloudflare.records.push(record);
  return record;
}
