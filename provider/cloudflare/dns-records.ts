import { loadGot } from "../client/load-got";
import { redact } from "../client/redact";
import { zoneRecord, ZoneRecord, ZoneRecordBody } from "./zone-record";

/**
 * The part of Cloudflare's v4 DNS-records API this package calls itself, for the records it
 * claims in a zone (`ClaimedDnsRecord`): list by name, read, create, replace (PUT) and delete,
 * as the Cloudflare provider sends them (`Authorization: Bearer`, JSON bodies, the v4 envelope).
 *
 * Reads, replaces and deletes are idempotent and retried on 429 (after its Retry-After), 5xx and
 * dropped connections, within a budget. A create is not: after a lost answer it looks for the
 * record it sent (same name, type, content and comment) before sending it again, so a record is
 * never made twice.
 */

export interface CloudflareApiSettings {
  /** e.g. `https://api.cloudflare.com/client/v4`. */
  baseUrl: string;
  apiToken: string;
  /** Per request. @default 30000 */
  requestTimeoutMs?: number;
  /** For everything one call may take, retries included. @default 60000 */
  budgetMs?: number;
  /** Injected for tests. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** Injected for tests. @default Date.now */
  now?: () => number;
}

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
}

/** A failed call: what was asked, Cloudflare's status and error codes, never the token. */
export class CloudflareApiError extends Error {
  constructor(
    message: string,
    /** Cloudflare's error codes (e.g. 81058, "an identical record already exists"). */
    readonly codes: number[],
    /** Undefined when no answer arrived. */
    readonly httpStatus: number | undefined,
  ) {
    super(message);
    this.name = "CloudflareApiError";
  }
}

export function isCloudflareApiError(error: unknown): error is CloudflareApiError {
  return error instanceof Error && Array.isArray((error as Partial<CloudflareApiError>).codes);
}

interface Envelope {
  success?: boolean;
  errors?: { code?: number; message?: string }[];
  result?: unknown;
  result_info?: { page?: number; total_pages?: number };
}

/** One answer: HTTP status and envelope, or why none came. */
type Answer =
  | { kind: "answered"; status: number; envelope: Envelope | undefined; retryAfterMs?: number }
  | { kind: "lost"; reason: string };

/** Records a page when listing one name: a name rarely holds more than a few. */
const NAME_PER_PAGE = 100;
/**
 * Records a page when listing a whole zone. Cloudflare's API takes up to 5,000,000 (its OpenAPI
 * schema); the pages are counted from what it answers, so a smaller cap on its side costs pages,
 * never records.
 */
const ZONE_PER_PAGE = 5000;
const MAX_PAGES = 100;

/** A client for one base URL and token. Build it inside provider methods (nothing module-level). */
export function dnsRecordsApi(settings: CloudflareApiSettings): DnsRecordsApi {
  const baseUrl = settings.baseUrl.replace(/\/+$/, "");
  const timeoutMs = settings.requestTimeoutMs ?? 30_000;
  const budgetMs = settings.budgetMs ?? 60_000;
  const sleep = settings.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = settings.now ?? Date.now;
  const secrets = [settings.apiToken];
  const http = loadGot().extend({
    retry: { limit: 0 }, // ours: a create must look before it sends again
    throwHttpErrors: false,
    followRedirect: false,
    responseType: "text",
    headers: {
      authorization: `Bearer ${settings.apiToken}`,
      accept: "application/json",
      "user-agent": "pulumi-email-delivery",
    },
  });

  async function send(
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
  ): Promise<Answer> {
    try {
      const response = await http(`${baseUrl}/${path}`, {
        method,
        json: body,
        timeout: { request: timeoutMs },
      });
      let envelope: Envelope | undefined;
      try {
        envelope = JSON.parse(response.body) as Envelope;
      } catch {
        envelope = undefined;
      }
      const retryAfter = Number(response.headers["retry-after"]);
      return {
        kind: "answered",
        status: response.statusCode,
        envelope,
        retryAfterMs: Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined,
      };
    } catch (error) {
      const code = (error as { code?: string }).code ?? "ERR_NETWORK";
      return {
        kind: "lost",
        reason: (error as { name?: string }).name === "TimeoutError" ? "timeout" : code,
      };
    }
  }

  function failure(what: string, answer: Answer): CloudflareApiError {
    let message: string;
    let codes: number[] = [];
    let httpStatus: number | undefined;
    if (answer.kind === "lost") {
      message = `Cloudflare ${what} failed: no answer from ${baseUrl} (${answer.reason})`;
    } else {
      httpStatus = answer.status;
      const errors = answer.envelope?.errors ?? [];
      codes = errors.map((error) => Number(error.code)).filter(Number.isFinite);
      const said = errors.map((error) => `${error.code} ${error.message ?? ""}`.trim()).join("; ");
      message = `Cloudflare ${what} failed: HTTP ${answer.status}${said ? ` (${said})` : answer.envelope ? "" : ", not Cloudflare's JSON: is the base URL right?"}`;
    }
    return new CloudflareApiError(redact(message, secrets), codes, httpStatus);
  }

  const transient = (answer: Answer) =>
    answer.kind === "lost" || answer.status === 429 || answer.status >= 500;

  /** Sends until an answer that is not transient, or the budget is spent. */
  async function idempotent(what: string, method: "GET" | "PUT" | "DELETE", path: string, body?: unknown) {
    const started = now();
    for (let attempt = 0; ; attempt++) {
      const answer = await send(method, path, body);
      if (!transient(answer)) return answer;
      const delay = retryDelay(answer, attempt);
      if (now() - started + delay > budgetMs) throw failure(what, answer);
      await sleep(delay);
    }
  }

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
   * Every page of a list, as many as `result_info.total_pages` says (at the page size Cloudflare
   * answered with), or until a page comes back empty.
   */
  async function listPages(zoneId: string, filter: Record<string, string>, perPage: number, what: string) {
    const found: ZoneRecord[] = [];
    const ids = new Set<string>();
    for (let page = 1; page <= MAX_PAGES; page++) {
      const query = new URLSearchParams({ ...filter, per_page: String(perPage), page: String(page) });
      const answer = await idempotent(what, "GET", `${records(zoneId)}?${query}`);
      const envelope = succeeded(answer);
      if (!envelope || !Array.isArray(envelope.result)) throw failure(what, answer);
      const result = envelope.result as unknown[];
      // A record added meanwhile moves the others a place back: one of them is then read twice.
      for (const record of result.map(zoneRecord)) {
        if (!ids.has(record.id)) found.push(record);
        ids.add(record.id);
      }
      const totalPages = envelope.result_info?.total_pages;
      if (result.length === 0 || (totalPages !== undefined && page >= totalPages)) return found;
    }
    throw failure(what, { kind: "lost", reason: `more than ${MAX_PAGES} pages` });
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
      const answer = await idempotent(what, "GET", `${records(zoneId)}/${encodeURIComponent(id)}`);
      if (saysGone(answer)) return undefined;
      const envelope = succeeded(answer);
      if (!envelope) throw failure(what, answer);
      return zoneRecord(envelope.result);
    },

    async create(zoneId, body) {
      const what = `create of a ${body.type} record at ${body.name}`;
      const started = now();
      for (let attempt = 0; ; attempt++) {
        const answer = await send("POST", records(zoneId), body);
        const envelope = succeeded(answer);
        if (envelope) return zoneRecord(envelope.result);
        // A 429 proves nothing was made; a lost answer or a 5xx may hide a record that was.
        if (!transient(answer)) throw failure(what, answer);
        if (!(answer.kind === "answered" && answer.status === 429)) {
          const made = (await api.list(zoneId, { name: body.name, type: body.type })).find(
            (record) =>
              record.content === body.content && (record.comment ?? null) === (body.comment ?? null),
          );
          if (made) return made;
        }
        const delay = retryDelay(answer, attempt);
        if (now() - started + delay > budgetMs) throw failure(what, answer);
        await sleep(delay);
      }
    },

    async replace(zoneId, id, body) {
      const what = `update of record ${id} (${body.type} ${body.name})`;
      const answer = await idempotent(what, "PUT", `${records(zoneId)}/${encodeURIComponent(id)}`, body);
      const envelope = succeeded(answer);
      if (!envelope) throw failure(what, answer);
      return zoneRecord(envelope.result);
    },

    async remove(zoneId, id) {
      const what = `delete of record ${id}`;
      const answer = await idempotent(what, "DELETE", `${records(zoneId)}/${encodeURIComponent(id)}`);
      if (saysGone(answer)) return false;
      if (!succeeded(answer)) throw failure(what, answer);
      return true;
    },
  };
  return api;
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

/** Backoff: Retry-After (capped at a minute), else 0.25, 0.5, 1, 2, 4, 8 s, 8 s… */
function retryDelay(answer: Answer, attempt: number): number {
  if (answer.kind === "answered" && answer.retryAfterMs !== undefined)
    return Math.min(answer.retryAfterMs, 60_000);
  // A dropped keep-alive connection is the usual lost answer: the first retry soon, then backing off.
  return Math.min(250 * 2 ** attempt, 8000);
}
