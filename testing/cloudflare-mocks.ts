import type * as pulumi from "@pulumi/pulumi";
import { cloudflareConnection, Method } from "../provider/cloudflare/api-request";
import { cloudflareProviderRetries, cloudflareProviderRetry, RetryPlan } from "../provider/client/retry";
import { isRecord } from "./mock-values";
import { nodeRealm } from "./node-realm";
import type { CloudflareRecordBody, Registration, RunOptions } from "./run-types";

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

/**
 * The Cloudflare provider's retries (`cloudflareProviderRetry`: 10 retries, a `Retry-After` under
 * a minute honoured), on a shorter clock: the provider waits 2 s doubling to 30 s between tries,
 * the kit 50 ms doubling to 1 s, so that a test under faults does not take minutes.
 */
const kitCloudflareRetry: RetryPlan = {
  ...cloudflareProviderRetry,
  baseDelayMs: 50,
  maxDelayMs: 1000,
};

/**
 * One call to the stand-in as the Cloudflare provider's API client makes it, through the
 * package's own Cloudflare connection: retried after a dropped connection, 408, 409, 429 and 5xx
 * (unless the answer says `x-should-retry: false`), a create too (the provider sends it again).
 * Its waits are on Node's own timers: a test's fake clock must not hold a run back.
 */
async function callCloudflare<T>(
  cloudflare: NonNullable<RunOptions["emulator"]>["cloudflare"],
  method: Method,
  path: string,
  body?: unknown,
): Promise<Answer<T>> {
  const connection = cloudflareConnection({
    baseUrl: cloudflare.url,
    apiToken: cloudflare.apiToken,
    retry: kitCloudflareRetry,
    retryable: cloudflareProviderRetries,
    // fetch's own limit, as before the kit called through the package: a run's `timeoutMs` bounds it.
    requestTimeoutMs: 300_000,
    sleep: (ms) => new Promise<void>((resolve) => nodeRealm.setTimeout(resolve, ms)),
  });
  const answer = await connection.call(method, path.replace(/^\//, ""), body);
  if (answer.kind === "lost") throw new Error(`Cloudflare ${method} ${path}: no answer (${answer.reason})`);
  const { status, text } = answer;
  return {
    status,
    ok: status >= 200 && status < 300,
    reply: answer.envelope as Envelope<T> | undefined,
    text,
  };
}

/** Why a call failed, in a line: Cloudflare's error codes and messages, else the body's start. */
function failure<T>(answer: Answer<T>): string {
  const errors = answer.reply?.errors ?? [];
  if (errors.length > 0) return errors.map((e) => `${e.code} ${e.message}`).join("; ");
  if (answer.reply) return "no result";
  return `an answer that is not JSON: ${answer.text.slice(0, 200)}`;
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
  // Inputs as planned (`proxied` false when not given: the schema's default) plus what the
  // provider computes from the API's answer.
  return {
    id: String(result.id),
    state: { ...inputs, proxied: inputs.proxied ?? false, ...computedState(result) },
  };
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
  const zoneId = registration.inputs.zoneId;
  if (typeof zoneId !== "string" || zoneId === "")
    throw new Error(
      `reading DnsRecord ${registration.name} (id ${id}) needs its zoneId in the state given to get`,
    );
  return (await readRecord(options, registration, zoneId, id, false))!;
}

/**
 * A `cloudflare.DnsRecord` as `pulumi refresh` reads it: its state as Cloudflare answers, or no id
 * when Cloudflare answers 404, which the provider reports as "Resource not found" and drops from
 * state (terraform-provider-cloudflare v5.19.1, `internal/services/dns_record/resource.go`, Read).
 */
export async function refreshDnsRecord(
  options: RunOptions,
  registration: Registration,
): Promise<{ id?: string; state?: Record<string, unknown> }> {
  const zoneId = String(registration.state?.zoneId ?? registration.inputs.zoneId);
  return (await readRecord(options, registration, zoneId, registration.id!, true)) ?? {};
}

/**
 * `GET zones/{zone}/dns_records/{id}` with the provider's retries: the state read; at a 404,
 * undefined when `goneAt404` (a refresh), else the failure (a `get`).
 */
async function readRecord(
  options: RunOptions,
  registration: Registration,
  zoneId: string,
  id: string,
  goneAt404: boolean,
): Promise<pulumi.runtime.MockResourceResult | undefined> {
  const answer = await callCloudflare<Record<string, unknown>>(
    options.emulator!.cloudflare,
    "GET",
    `/zones/${encodeURIComponent(zoneId)}/dns_records/${encodeURIComponent(id)}`,
  );
  if (answer.status === 404 && goneAt404) return undefined;
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
