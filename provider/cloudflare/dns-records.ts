import { redact } from "../client/redact";
import {
  Answer,
  CloudflareApiError,
  CloudflareApiSettings,
  cloudflareConnection,
  Envelope,
  Method,
} from "./api-request";
import { failureHeadline } from "./failure-advice";
import { zoneRecord, ZoneRecord, ZoneRecordBody } from "./zone-record";

/**
 * The part of Cloudflare's v4 DNS-records API this package calls itself, for the records it
 * claims in a zone (`ClaimedDnsRecord`): list by name, read, create, replace (PUT) and delete,
 * as the Cloudflare provider sends them (`Authorization: Bearer`, JSON bodies, the v4 envelope).
 *
 * Reads, replaces and deletes are idempotent and retried on 429 (after its Retry-After), 5xx and
 * dropped connections, within a budget (`cloudflareClientRetry`, through `api-request.ts`). A
 * create is not: after a lost answer it looks for the record it sent (same name, type, content
 * and comment) before sending it again, so a record is never made twice; a resend refused as
 * identical (81058) after a lost answer looks again.
 */

export { CloudflareApiError, isCloudflareApiError } from "./api-request";
export type { CloudflareApiSettings } from "./api-request";

export interface DnsRecordsApi {
  /** Every record named `name` (exact, case-insensitive), of `type` when given, all pages. */
  list(zoneId: string, filter: { name: string; type?: string }): Promise<ZoneRecord[]>;
  /** Every record of the zone, all pages (5,000 a page: a zone of 5,000 records is one request). */
  listZone(zoneId: string): Promise<ZoneRecord[]>;
  /** The record, or undefined when Cloudflare says it does not exist. */
  get(zoneId: string, id: string): Promise<ZoneRecord | undefined>;
  create(zoneId: string, body: ZoneRecordBody): Promise<ZoneRecord>;
  replace(zoneId: string, id: string, body: ZoneRecordBody): Promise<ZoneRecord>;
  /** False when it was already gone. */
  remove(zoneId: string, id: string): Promise<boolean>;
  /**
   * Deletes and creates in one request (`dns_records/batch`), applied all or nothing: the deletes
   * first, then the creates. At most 200 operations on Cloudflare's Free plan (3,500 on paid plans):
   * the caller splits.
   */
  batch(zoneId: string, changes: RecordBatch): Promise<BatchResult>;
}

/** What one batch changes: records deleted by id, records created. */
export interface RecordBatch {
  deletes?: readonly string[];
  posts?: readonly ZoneRecordBody[];
}

/** What a batch did: the ids deleted, and the records created in the order they were given. */
export interface BatchResult {
  deleted: string[];
  posted: ZoneRecord[];
}

/** Records a page when listing one name: a name rarely holds more than a few. */
const NAME_PER_PAGE = 100;
/**
 * Records a page when listing a whole zone. Cloudflare's API takes up to 5,000,000 (its OpenAPI
 * schema); the pages are counted from what it answers, so a smaller cap on its side costs pages,
 * never records.
 */
const ZONE_PER_PAGE = 5000;
const MAX_PAGES = 100;

/** A client for one base URL and token. Build it inside provider methods, where the token is read. */
export function dnsRecordsApi(settings: CloudflareApiSettings): DnsRecordsApi {
  const cloudflare = cloudflareConnection(settings);
  /** The error for a call on `zoneId`, first saying what to do when the zone or the token is wrong. */
  const failure = (zoneId: string, what: string, answer: Answer) => {
    const error = cloudflare.failure(what, answer);
    const headline = failureHeadline(answer, zoneId);
    return headline
      ? new CloudflareApiError(`${headline}\n${error.message}`, error.codes, error.httpStatus)
      : error;
  };
  /** A read, replace or delete: idempotent, so sent again after a lost answer. */
  const idempotent = (method: Method, path: string, body?: unknown) => cloudflare.call(method, path, body);

  /** The envelope of a successful answer, else undefined. */
  const succeeded = (answer: Answer): Envelope | undefined =>
    answer.kind === "answered" &&
    answer.status >= 200 &&
    answer.status < 300 &&
    answer.envelope?.success !== false
      ? answer.envelope
      : undefined;

  const records = (zoneId: string) => `zones/${encodeURIComponent(zoneId)}/dns_records`;

  /**
   * A record of an answer. The error for one without id, name or type quotes the answer, which an
   * endpoint that is not Cloudflare's (a wrong base URL: an echo service, a proxy) may fill with
   * the request's headers: it is cleaned of the token, as every error of this client is.
   */
  const recordOf = (value: unknown): ZoneRecord => {
    try {
      return zoneRecord(value);
    } catch (error) {
      // No `cause`: it would carry the message as it was, token and all.
      // eslint-disable-next-line preserve-caught-error
      throw new Error(redact((error as Error).message, [settings.apiToken]));
    }
  };

  /**
   * Every page of a list, as many as `result_info.total_pages` says (at the page size Cloudflare
   * answered with), or until a page comes back empty.
   */
  async function listPages(zoneId: string, filter: Record<string, string>, perPage: number, what: string) {
    const found: ZoneRecord[] = [];
    const ids = new Set<string>();
    for (let page = 1; page <= MAX_PAGES; page++) {
      const query = new URLSearchParams({ ...filter, per_page: String(perPage), page: String(page) });
      const answer = await idempotent("GET", `${records(zoneId)}?${query}`);
      const envelope = succeeded(answer);
      if (!envelope || !Array.isArray(envelope.result)) throw failure(zoneId, what, answer);
      const result = envelope.result as unknown[];
      // A record added meanwhile moves the others a place back: one of them is then read twice.
      for (const record of result.map(recordOf)) {
        if (!ids.has(record.id)) found.push(record);
        ids.add(record.id);
      }
      const totalPages = envelope.result_info?.total_pages;
      if (result.length === 0 || (totalPages !== undefined && page >= totalPages)) return found;
    }
    throw failure(zoneId, what, { kind: "lost", reason: `more than ${MAX_PAGES} pages` });
  }

  const api: DnsRecordsApi = {
    list(zoneId, filter) {
      const query: Record<string, string> = {
        "name.exact": filter.name,
        ...(filter.type ? { type: filter.type } : {}),
      };
      return listPages(
        zoneId,
        query,
        NAME_PER_PAGE,
        `list of ${filter.type ?? "all"} records named ${filter.name}`,
      );
    },

    listZone(zoneId) {
      return listPages(zoneId, {}, ZONE_PER_PAGE, `list of the records of zone ${zoneId}`);
    },

    async get(zoneId, id) {
      const what = `read of record ${id}`;
      const answer = await idempotent("GET", `${records(zoneId)}/${encodeURIComponent(id)}`);
      if (saysGone(answer)) return undefined;
      const envelope = succeeded(answer);
      if (!envelope) throw failure(zoneId, what, answer);
      return recordOf(envelope.result);
    },

    async create(zoneId, body) {
      const what = `create of a ${body.type} record at ${body.name}`;
      // A lost answer or a 5xx may hide a record that was made: look for it before sending again.
      const find = async () =>
        (await api.list(zoneId, { name: body.name, type: body.type })).find(
          (record) => record.content === body.content && (record.comment ?? null) === (body.comment ?? null),
        );
      let lost = false;
      const lookup = () => {
        lost = true;
        return find();
      };
      const answer = await cloudflare.call("POST", records(zoneId), body, { lookup });
      if ("found" in answer) return answer.found;
      const envelope = succeeded(answer);
      if (envelope) return recordOf(envelope.result);
      // A request whose answer was lost (a timeout) may be done after the lookup found nothing:
      // the resend is then refused as identical to it. The record, marked with this stack's
      // comment, is the one this create made (one made before it would have stopped the create).
      // Without a lost answer, the refusal stands: another resource may have made it.
      if (lost && saysIdentical(answer)) {
        const made = await find();
        if (made) return made;
      }
      throw failure(zoneId, what, answer);
    },

    async replace(zoneId, id, body) {
      const what = `update of record ${id} (${body.type} ${body.name})`;
      const answer = await idempotent("PUT", `${records(zoneId)}/${encodeURIComponent(id)}`, body);
      const envelope = succeeded(answer);
      if (!envelope) throw failure(zoneId, what, answer);
      return recordOf(envelope.result);
    },

    async batch(zoneId, { deletes = [], posts = [] }) {
      if (deletes.length === 0 && posts.length === 0) return { deleted: [], posted: [] };
      const what = `batch of ${deletes.length} deletes and ${posts.length} creates`;
      // A lost answer may hide the batch done. It is all or nothing, and only its creates prove it
      // was applied (a record already deleted may be someone else's doing): every create there is
      // the batch done; none, not done (sent again: a delete of a record gone since is then
      // refused, and the caller sends each operation alone); some, someone else's change to these
      // records meanwhile, which no resend can sort out. Deletes alone: all gone is done.
      let lost = false;
      const lookup = async (): Promise<BatchResult | undefined> => {
        lost = true;
        const zone = await api.listZone(zoneId);
        const held = new Set(zone.map((record) => record.id));
        const made = posts.map((post) => zone.find((record) => sameRecord(record, post)));
        const done = { deleted: [...deletes], posted: made as ZoneRecord[] };
        if (posts.length === 0) return deletes.every((id) => !held.has(id)) ? done : undefined;
        if (made.every(Boolean)) return done;
        if (made.every((record) => !record)) return undefined;
        throw failure(zoneId, what, {
          kind: "lost",
          reason:
            "its answer was lost, and the zone holds part of it: someone changed these records meanwhile",
        });
      };
      const body = { deletes: deletes.map((id) => ({ id })), posts };
      const answer = await cloudflare.call("POST", `${records(zoneId)}/batch`, body, { lookup });
      if ("found" in answer) return answer.found;
      const envelope = succeeded(answer);
      const result = envelope?.result as { posts?: unknown } | undefined;
      if (envelope && Array.isArray(result?.posts) && result.posts.length === posts.length)
        return { deleted: [...deletes], posted: result.posts.map(recordOf) };
      // Sent again after a lost answer that the lookup found nothing of, and refused as identical:
      // the first one was done after the lookup (a request that outlived its timeout). Look again.
      if (lost && saysIdentical(answer)) {
        const found = await lookup();
        if (found) return found;
      }
      if (envelope && Array.isArray(result?.posts)) {
        throw failure(zoneId, what, {
          kind: "lost",
          reason: `Cloudflare answered ${result.posts.length} records for ${posts.length} creates`,
        });
      }
      throw failure(zoneId, what, answer);
    },

    async remove(zoneId, id) {
      const what = `delete of record ${id}`;
      const answer = await idempotent("DELETE", `${records(zoneId)}/${encodeURIComponent(id)}`);
      if (saysGone(answer)) return false;
      if (!succeeded(answer)) throw failure(zoneId, what, answer);
      return true;
    },
  };
  return api;
}

/**
 * Whether the zone's `record` is the one `body` creates: its name, type, content and comment (the
 * stack's ownership mark), as a create looks for the record its lost answer made.
 */
function sameRecord(record: ZoneRecord, body: ZoneRecordBody): boolean {
  return (
    record.name === body.name.toLowerCase() &&
    record.type === body.type.toUpperCase() &&
    record.content === body.content &&
    (record.comment ?? null) === (body.comment ?? null)
  );
}

/** Cloudflare's "An identical record already exists." (81058; 81057 in its older form). */
function saysIdentical(answer: Answer): boolean {
  if (answer.kind !== "answered" || answer.status !== 400) return false;
  return (answer.envelope?.errors ?? []).some((error) => error.code === 81058 || error.code === 81057);
}

/**
 * Cloudflare's own word that a record or its zone does not exist (404 with 81044 "Record does not
 * exist." or 1001 "Invalid zone identifier"). Any other 404 (no route: a base URL of another API
 * version, a proxy's page) says nothing about the record: taken for "gone", a refresh would drop
 * it from state and a destroy would never put back what it took.
 */
function saysGone(answer: Answer): boolean {
  if (answer.kind !== "answered" || answer.status !== 404) return false;
  return (answer.envelope?.errors ?? []).some((error) => error.code === 81044 || error.code === 1001);
}
