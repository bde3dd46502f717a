import { CloudflareConfig } from "../config";
import { ServiceResponse } from "../http/service";
import { CloudflareDnsRecord, ZoneRecord } from "../store/state";
import { Store } from "../store/store";
import { success } from "./envelope";
import { cloudflareErrors } from "./errors";
import { cloudflareTimestamp, newCloudflareId } from "./ids";
import { paginate, readPageRequest, sortBy } from "./paging";
import { assertNoConflict } from "./record-conflicts";
import { assertListOptions, recordFilter, recordOrder } from "./record-filters";
import { RecordFields, draftFromBody, draftFromPatch, readRecordBody, validateRecord } from "./record-input";
import { recordJson } from "./record-json";
import { shadowFilter, shadowMeta } from "./record-shadows";

/** The DNS-record operations on the store, one function per endpoint. */

export interface RecordContext {
  store: Store;
  config: CloudflareConfig;
  zone: ZoneRecord;
}

const KIND = "cloudflare.dns_record";

/**
 * `per_page` as Cloudflare's current OpenAPI schema documents it for this list (default 100,
 * 1 to 5,000,000; the retired api.cloudflare.com reference said at least 5).
 */
const RECORD_PAGES = { defaultPerPage: 100, minPerPage: 1, maxPerPage: 5_000_000 };

/** The zone's records that the list's filters in `query` match (shadow filters too), in creation order. */
export function matchingRecords(
  { store, zone }: Pick<RecordContext, "store" | "zone">,
  query: URLSearchParams,
): CloudflareDnsRecord[] {
  const zoneRecords = store.state.cloudflare.records.filter((record) => record.zoneId === zone.id);
  const matches = recordFilter(query);
  const shadows = shadowFilter(query, zone.name);
  return zoneRecords.filter((record) => matches(record) && (!shadows || shadows(record)));
}

export function listRecords(context: RecordContext, query: URLSearchParams): ServiceResponse {
  assertListOptions(query);
  const request = readPageRequest(query, RECORD_PAGES);
  const { store, zone } = context;
  const zoneRecords = store.state.cloudflare.records.filter((record) => record.zoneId === zone.id);
  const records = matchingRecords(context, query);
  const sorted = sortBy(records, recordOrder(query.get("order")), query.get("direction"));
  const page = paginate(sorted, request);
  const withShadows = query.get("include_shadow_metadata") === "true";
  const items = page.items.map((record) =>
    recordJson(record, withShadows ? shadowMeta(record, zoneRecords, zone.name) : undefined),
  );
  return { ...success(items, page.info), effect: { listed: page.items.length } };
}

/**
 * What a POST does to the store: validates the body, refuses a conflict, stores the record. The
 * endpoint and the emulator's seeding (`emulator.cloudflare.addRecord`) both go through it.
 */
export function insertRecord({ store, config, zone }: RecordContext, json: unknown): CloudflareDnsRecord {
  const fields = validateRecord(draftFromBody(readRecordBody(json)), zone.name, config);
  assertNoConflict(store.state.cloudflare.records, zone.id, fields);
  const now = cloudflareTimestamp();
  const record: CloudflareDnsRecord = {
    id: newCloudflareId(),
    zoneId: zone.id,
    ...fields,
    createdOn: now,
    modifiedOn: now,
    commentModifiedOn: fields.comment !== null ? now : null,
    tagsModifiedOn: fields.tags.length > 0 ? now : null,
  };
  store.state.cloudflare.records.push(record);
  store.changed();
  return record;
}

export function createRecord(context: RecordContext, json: unknown): ServiceResponse {
  const record = insertRecord(context, rewrittenCreate(context, json));
  return {
    ...success(recordJson(record)),
    effect: { created: { kind: KIND, id: record.id, name: record.name } },
  };
}

export function getRecord(context: RecordContext, recordId: string): ServiceResponse {
  return success(recordJson(requireRecord(context, recordId)));
}

/** PUT: the body replaces the record; what it omits or sends as null goes back to the default. */
export function replaceRecord(context: RecordContext, recordId: string, json: unknown): ServiceResponse {
  return updated(putRecord(context, recordId, json));
}

/** What a PUT does to the store (shared with the batch's `puts`). */
export function putRecord(context: RecordContext, recordId: string, json: unknown): CloudflareDnsRecord {
  const existing = requireRecord(context, recordId);
  const fields = validateRecord(draftFromBody(readRecordBody(json)), context.zone.name, context.config);
  return writeRecord(context, existing, fields);
}

/** PATCH: only the keys sent change (null unsets). The provider never uses it; curl users do. */
export function patchRecord(context: RecordContext, recordId: string, json: unknown): ServiceResponse {
  return updated(changeRecord(context, recordId, json));
}

/** What a PATCH does to the store (shared with the batch's `patches`). */
export function changeRecord(context: RecordContext, recordId: string, json: unknown): CloudflareDnsRecord {
  const existing = requireRecord(context, recordId);
  const fields = validateRecord(
    draftFromPatch(existing, readRecordBody(json)),
    context.zone.name,
    context.config,
  );
  return writeRecord(context, existing, fields);
}

/** What a DELETE does to the store (shared with `emulator.cloudflare.removeRecord`). */
export function removeRecord(context: RecordContext, recordId: string): CloudflareDnsRecord {
  const record = requireRecord(context, recordId);
  const records = context.store.state.cloudflare.records;
  records.splice(records.indexOf(record), 1);
  context.store.changed();
  return record;
}

export function deleteRecord(context: RecordContext, recordId: string): ServiceResponse {
  const record = removeRecord(context, recordId);
  return { ...success({ id: record.id }), effect: { deleted: { kind: KIND, id: record.id } } };
}

function requireRecord({ store, zone }: RecordContext, recordId: string): CloudflareDnsRecord {
  const record = store.state.cloudflare.records.find((r) => r.id === recordId && r.zoneId === zone.id);
  if (!record) throw cloudflareErrors.recordNotFound();
  return record;
}

function updated(record: CloudflareDnsRecord): ServiceResponse {
  return { ...success(recordJson(record)), effect: { updated: { kind: KIND, id: record.id } } };
}

function writeRecord(
  context: RecordContext,
  existing: CloudflareDnsRecord,
  fields: RecordFields,
): CloudflareDnsRecord {
  assertNoConflict(context.store.state.cloudflare.records, context.zone.id, fields, existing.id);
  const now = cloudflareTimestamp();
  const sameTags =
    fields.tags.length === existing.tags.length && fields.tags.every((t, i) => t === existing.tags[i]);
  existing.commentModifiedOn =
    fields.comment === null ? null : fields.comment === existing.comment ? existing.commentModifiedOn : now;
  existing.tagsModifiedOn = fields.tags.length === 0 ? null : sameTags ? existing.tagsModifiedOn : now;
  Object.assign(existing, fields, { modifiedOn: now });
  context.store.changed();
  return existing;
}

/** A create's body as the in-process hook (`rewriteCreate`) changes it, if one is set. */
export function rewrittenCreate({ config }: RecordContext, json: unknown): unknown {
  const rewrite = config.rewriteCreate;
  if (!rewrite || typeof json !== "object" || json === null || Array.isArray(json)) return json;
  return rewrite({ ...(json as Record<string, unknown>) });
}
