import type * as pulumi from "@pulumi/pulumi";
import { isRecord } from "./mock-values";
import type { CloudflareRecordBody, Registration, RunOptions } from "./program-run";

/**
 * What the Cloudflare provider does against the emulator's stand-in, as the kit plays it: a
 * `cloudflare.DnsRecord` created with the body the real provider sends, deleted as it deletes,
 * and `getDnsRecords` read as it reads.
 */

/** Cloudflare's answer envelope. */
interface Envelope<T> {
  success?: boolean;
  errors?: { code: number; message: string }[];
  result?: T | null;
}

/** An answer: its status, and its envelope (undefined when the body is not JSON, then in `text`). */
interface Answer<T> {
  status: number;
  ok: boolean;
  reply?: Envelope<T>;
  text: string;
}

/** Retries after the first try, as the Cloudflare provider's API client (cloudflare-go ≥ 6.6). */
const MAX_RETRIES = 10;

/**
 * One call to the stand-in as the Cloudflare provider's API client makes it: retried after a
 * dropped connection, 408, 409, 429 and 5xx (unless the answer says `x-should-retry: false`),
 * honouring a `Retry-After` under a minute. The client waits 2 s, doubling to 30 s, between
 * tries; the kit waits from 50 ms to at most 1 s, so a test under faults does not take minutes.
 */
async function callCloudflare<T>(
  cloudflare: NonNullable<RunOptions["emulator"]>["cloudflare"],
  method: "GET" | "POST" | "DELETE",
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  const headers: Record<string, string> = { Authorization: `Bearer ${cloudflare.apiToken}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  for (let retry = 0; ; retry++) {
    let response: Response | undefined;
    let lost: unknown;
    try {
      response = await fetch(`${cloudflare.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      lost = error;
    }
    const shouldRetry = response?.headers.get("x-should-retry");
    const retriable =
      response === undefined ||
      shouldRetry === "true" ||
      (shouldRetry !== "false" && [408, 409, 429].includes(response.status)) ||
      (shouldRetry !== "false" && response.status >= 500);
    if (!retriable || retry === MAX_RETRIES) {
      if (!response) throw new Error(`Cloudflare ${method} ${path}: no answer (${errorText(lost)})`);
      const text = await response.text();
      let reply: Envelope<T> | undefined;
      try {
        reply = JSON.parse(text) as Envelope<T>;
      } catch {
        reply = undefined;
      }
      return { status: response.status, ok: response.ok, reply, text };
    }
    await response?.body?.cancel();
    const retryAfter = Number(response?.headers.get("retry-after"));
    const delayMs =
      Number.isFinite(retryAfter) && retryAfter >= 0 && retryAfter < 60
        ? retryAfter * 1000
        : Math.min(1000, 50 * 2 ** retry);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}

/** Why a call failed, in a line: Cloudflare's error codes and messages, else the body's start. */
function failure<T>(answer: Answer<T>): string {
  const errors = answer.reply?.errors ?? [];
  if (errors.length > 0) return errors.map((e) => `${e.code} ${e.message}`).join("; ");
  if (answer.reply) return "no result";
  return `an answer that is not JSON: ${answer.text.slice(0, 200)}`;
}

function errorText(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
}

/** POSTs the record as `cloudflare.DnsRecord` would and returns the state the provider would keep. */
export async function createDnsRecord(
  options: RunOptions,
  registration: Registration,
): Promise<pulumi.runtime.MockResourceResult> {
  const cloudflare = options.emulator!.cloudflare;
  const inputs = registration.inputs;
  // The provider refuses this before any request (terraform-provider-cloudflare v5.19.1,
  // internal/services/dns_record/resource.go, Create: `data.Proxied.ValueBool() &&
  // data.TTL.ValueFloat64() != 1`; an absent TTL reads as 0, so it is refused too).
  if (inputs.proxied === true && inputs.ttl !== 1)
    throw new Error(
      "ttl must be set to 1 when `proxied` is true: When a DNS record is marked as `proxied` the TTL must be 1 " +
        "as Cloudflare will control the TTL internally.",
    );
  let body: CloudflareRecordBody = {};
  for (const key of ["comment", "content", "name", "priority", "proxied", "ttl", "type"] as const) {
    if (inputs[key] !== undefined && inputs[key] !== null)
      (body as Record<string, unknown>)[key] = inputs[key];
  }
  body = options.hooks?.cloudflareRecord?.(body, registration) ?? body;
  const answer = await callCloudflare<Record<string, unknown>>(
    cloudflare,
    "POST",
    `/zones/${String(inputs.zoneId)}/dns_records`,
    body,
  );
  const result = answer.reply?.result;
  if (!answer.ok || !answer.reply?.success || !result)
    throw new Error(`Cloudflare POST dns_records ${answer.status}: ${failure(answer)}`);
  // Inputs as planned plus what the provider computes from the API's answer.
  return { id: String(result.id), state: { ...inputs, ...computedState(result) } };
}

/** What the provider computes from the API's record, beside the inputs. */
function computedState(result: Record<string, unknown>): Record<string, unknown> {
  return {
    proxiable: result.proxiable,
    createdOn: result.created_on,
    modifiedOn: result.modified_on,
    meta: JSON.stringify(result.meta ?? {}),
    settings: result.settings ?? {},
    tags: result.tags ?? [],
    ...(result.comment_modified_on !== undefined && { commentModifiedOn: result.comment_modified_on }),
  };
}

/**
 * `cloudflare.DnsRecord.get(name, id, { zoneId })` as the provider reads it (in previews too):
 * `GET zones/{zone}/dns_records/{id}`, the record's state from the answer. Nothing is written.
 */
export async function readDnsRecord(
  options: RunOptions,
  registration: Registration,
  id: string,
): Promise<pulumi.runtime.MockResourceResult> {
  const cloudflare = options.emulator!.cloudflare;
  const zoneId = registration.inputs.zoneId;
  if (typeof zoneId !== "string" || zoneId === "")
    throw new Error(
      `reading DnsRecord ${registration.name} (id ${id}) needs its zoneId in the state given to get`,
    );
  const answer = await callCloudflare<Record<string, unknown>>(
    cloudflare,
    "GET",
    `/zones/${encodeURIComponent(zoneId)}/dns_records/${encodeURIComponent(id)}`,
  );
  const result = answer.reply?.result;
  if (!answer.ok || !answer.reply?.success || !result)
    throw new Error(
      `reading DnsRecord ${registration.name} (id ${id}): Cloudflare GET dns_records ${answer.status}: ${failure(answer)}`,
    );
  const state: Record<string, unknown> = { zoneId };
  for (const key of ["name", "type", "content", "ttl", "proxied", "priority", "comment"]) {
    if (result[key] !== undefined && result[key] !== null) state[key] = result[key];
  }
  return { id: String(result.id), state: { ...state, ...computedState(result) } };
}

/**
 * `cloudflare.getDnsRecords` as the Cloudflare provider answers it: `GET zones/{id}/dns_records`
 * with its filters as dotted query keys and no `per_page` (Cloudflare's default, 100), each record
 * with the provider's camelCase names. Paged exactly as the provider pages, which is
 * terraform-provider-cloudflare's `internal/services/dns_record/list_data_source.go` (`Read`) over
 * cloudflare-go v6's `packages/pagination/pagination.go` (`V4PagePaginationArray.GetNextPage`):
 *
 * - the first request carries no `page`; each next one sets `page` to the URL's page (1 when
 *   absent) plus one — `total_pages` and `result_info` are never read;
 * - it stops at the first page whose `result` is empty, or as soon as the records gathered reach
 *   `maxItems` (no further request is sent), and keeps the first `maxItems`;
 * - `maxItems` absent, zero or negative means 1,000.
 *
 * So a read of R records under `maxItems` costs ⌈R/100⌉ + 1 requests, and one cut at `maxItems`
 * returns exactly `maxItems` records, with nothing to say it was cut.
 */
export async function getDnsRecords(
  emulator: NonNullable<RunOptions["emulator"]>,
  inputs: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(inputs)) {
    if (key === "zoneId" || key === "maxItems" || value === undefined || value === null) continue;
    const apiKey = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`); // tagMatch → tag_match
    if (isRecord(value)) {
      for (const [operator, operand] of Object.entries(value))
        query.append(`${apiKey}.${operator}`, String(operand));
    } else {
      query.append(apiKey, String(value));
    }
  }
  // list_data_source.go (`Read`, v5.19.1): `maxItems := int(data.MaxItems.ValueInt64())`, then
  // `if maxItems <= 0 { maxItems = 1000 }`: absent, 0 or negative is 1,000.
  const requested = typeof inputs.maxItems === "number" ? Math.trunc(inputs.maxItems) : 0;
  const maxItems = requested > 0 ? requested : 1000;
  const results: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    if (page > 1) query.set("page", String(page));
    const answer = await callCloudflare<Record<string, unknown>[]>(
      emulator.cloudflare,
      "GET",
      `/zones/${String(inputs.zoneId)}/dns_records${query.size > 0 ? `?${query}` : ""}`,
    );
    const records = answer.reply?.result;
    if (!answer.ok || !answer.reply?.success || !records)
      throw new Error(`Cloudflare GET dns_records ${answer.status}: ${failure(answer)}`);
    if (records.length === 0) break;
    results.push(...records.map(camelCaseRecord));
    if (results.length >= maxItems) break;
  }
  return { ...inputs, results: results.slice(0, maxItems) };
}

/** An API record with the Pulumi SDK's property names (`created_on` → `createdOn`). */
function camelCaseRecord(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [
      key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()),
      value,
    ]),
  );
}

/** DELETEs a record as `cloudflare.DnsRecord` does on destroy. */
export async function deleteDnsRecord(options: RunOptions, registration: Registration): Promise<void> {
  const cloudflare = options.emulator!.cloudflare;
  const zoneId = String(registration.inputs.zoneId);
  const answer = await callCloudflare(
    cloudflare,
    "DELETE",
    `/zones/${zoneId}/dns_records/${registration.id}`,
  );
  if (!answer.ok) throw new Error(`Cloudflare DELETE dns_records ${answer.status}: ${failure(answer)}`);
}
