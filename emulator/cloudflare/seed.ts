import { insertRecord, matchingRecords, removeRecord } from "./dns-records";
import { CloudflareRecordJson, recordJson } from "./record-json";
import { CloudflareServiceContext } from "./service";
import { zoneByIdOrName } from "./zones";

/**
 * The DNS-records operations without HTTP, for the emulator's seeding: the same functions the
 * endpoints call (validation, normalisation, conflicts), answering what the API answers.
 * Synchronous and not yet durable: `emulator/seeding.ts` waits for the state file.
 */

/**
 * A DNS record as `POST /zones/{zone_id}/dns_records` takes it: the same fields, rules and
 * defaults (unknown fields are ignored, as the API ignores them).
 */
export interface CloudflareRecordInput {
  /** `A`, `AAAA`, `CNAME`, `MX`, `TXT` or `NS` (any case). @example "TXT" */
  type: string;
  /**
   * `@` for the zone's apex, a single label relative to the zone (`www`), or a name ending in the
   * zone, with or without a trailing dot. A dotted name outside the zone is refused (9000).
   * @example "mail.example.com"
   */
  name: string;
  /**
   * The record's value. TXT content is stored as given: quote it as Cloudflare shows it
   * (`"v=spf1 -all"`); a quoted string over 255 bytes is split in two, as Cloudflare does.
   * @example "\"v=spf1 include:_spf.google.com ~all\""
   */
  content: string;
  /** Seconds, 60 to 86400, or 1 for "automatic". @default 1 */
  ttl?: number;
  /** A, AAAA and CNAME only. @default false */
  proxied?: boolean;
  /** Required on MX (0 to 65535); ignored on other types. @example 10 */
  priority?: number;
  /** Free text; an empty one counts as none. @default none (null) */
  comment?: string;
  /** `name:value` tags. @default [] */
  tags?: string[];
  /** Cloudflare's per-record settings, echoed back. @default {} */
  settings?: Record<string, unknown>;
}

/** Which of a zone's records `records()` gives: the list's `name` and `type` filters. */
export interface CloudflareRecordFilter {
  /** The record's fully qualified name, compared as the API's `name=` does (case-insensitively). @default any */
  name?: string;
  /** @default any */
  type?: string;
}

/** Stores `input` in `zone` (its id or name) as a POST would; throws its `CloudflareApiError`. */
export function seedRecord(
  context: CloudflareServiceContext,
  zone: string,
  input: CloudflareRecordInput,
): CloudflareRecordJson {
  return recordJson(insertRecord({ ...context, zone: zoneByIdOrName(context.store, zone) }, input));
}

/** The zone's records as the list answers them (in creation order), `filter` applied. */
export function zoneRecords(
  context: CloudflareServiceContext,
  zone: string,
  filter: CloudflareRecordFilter = {},
): CloudflareRecordJson[] {
  const query = new URLSearchParams();
  if (filter.name !== undefined) query.set("name", filter.name);
  if (filter.type !== undefined) query.set("type", filter.type);
  return matchingRecords({ store: context.store, zone: zoneByIdOrName(context.store, zone) }, query).map(
    (record) => recordJson(record),
  );
}

/** Deletes a record of `zone` as a DELETE would (81044 when the zone holds no such record). */
export function unseedRecord(context: CloudflareServiceContext, zone: string, id: string): void {
  removeRecord({ ...context, zone: zoneByIdOrName(context.store, zone) }, id);
}
