import type * as pulumi from "@pulumi/pulumi";
import { isRecord } from "./mock-values";
import type { CloudflareRecordBody, Registration, RunOptions } from "./program-run";

/**
 * What the Cloudflare provider does against the emulator's stand-in, as the kit plays it: a
 * `cloudflare.DnsRecord` created with the body the real provider sends, deleted as it deletes,
 * and `getDnsRecords` read as it reads.
 */

/** POSTs the record as `cloudflare.DnsRecord` would and returns the state the provider would keep. */
export async function createDnsRecord(
  options: RunOptions,
  registration: Registration,
): Promise<pulumi.runtime.MockResourceResult> {
  const cloudflare = options.emulator!.cloudflare;
  const inputs = registration.inputs;
  let body: CloudflareRecordBody = {};
  for (const key of ["comment", "content", "name", "priority", "proxied", "ttl", "type"] as const) {
    if (inputs[key] !== undefined && inputs[key] !== null)
      (body as Record<string, unknown>)[key] = inputs[key];
  }
  body = options.hooks?.cloudflareRecord?.(body, registration) ?? body;
  const response = await fetch(`${cloudflare.url}/zones/${String(inputs.zoneId)}/dns_records`, {
    method: "POST",
    headers: { Authorization: `Bearer ${cloudflare.apiToken}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const reply = (await response.json()) as {
    success: boolean;
    errors: { code: number; message: string }[];
    result: Record<string, unknown> | null;
  };
  if (!response.ok || !reply.success || !reply.result) {
    const reasons = reply.errors.map((e) => `${e.code} ${e.message}`).join("; ");
    throw new Error(`Cloudflare POST dns_records ${response.status}: ${reasons}`);
  }
  const result = reply.result;
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
  const response = await fetch(
    `${cloudflare.url}/zones/${encodeURIComponent(zoneId)}/dns_records/${encodeURIComponent(id)}`,
    { headers: { Authorization: `Bearer ${cloudflare.apiToken}` } },
  );
  const reply = (await response.json().catch(() => undefined)) as
    | {
        success?: boolean;
        errors?: { code: number; message: string }[];
        result?: Record<string, unknown> | null;
      }
    | undefined;
  if (!response.ok || !reply?.success || !reply.result) {
    const reasons = (reply?.errors ?? []).map((e) => `${e.code} ${e.message}`).join("; ");
    throw new Error(
      `reading DnsRecord ${registration.name} (id ${id}): Cloudflare GET dns_records ${response.status}: ${reasons}`,
    );
  }
  const result = reply.result;
  const state: Record<string, unknown> = { zoneId };
  for (const key of ["name", "type", "content", "ttl", "proxied", "priority", "comment"]) {
    if (result[key] !== undefined && result[key] !== null) state[key] = result[key];
  }
  return { id: String(result.id), state: { ...state, ...computedState(result) } };
}

/**
 * `cloudflare.getDnsRecords` as the Cloudflare provider answers it: `GET zones/{id}/dns_records`
 * with its filters as dotted query keys, page after page until one comes back empty (it ignores
 * `total_pages`), at most `maxItems` (1000), each record with the provider's camelCase names.
 */
export async function getDnsRecords(
  emulator: NonNullable<RunOptions["emulator"]>,
  inputs: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(inputs)) {
    if (key === "zoneId" || key === "maxItems" || value === undefined || value === null) continue;
    if (isRecord(value)) {
      for (const [operator, operand] of Object.entries(value))
        query.append(`${key}.${operator}`, String(operand));
    } else {
      query.append(key, String(value));
    }
  }
  const maxItems = typeof inputs.maxItems === "number" ? inputs.maxItems : 1000;
  const results: Record<string, unknown>[] = [];
  for (let page = 1; results.length < maxItems; page++) {
    query.set("page", String(page));
    const response = await fetch(
      `${emulator.cloudflare.url}/zones/${String(inputs.zoneId)}/dns_records?${query}`,
      {
        headers: { Authorization: `Bearer ${emulator.cloudflare.apiToken}` },
      },
    );
    const reply = (await response.json()) as {
      success: boolean;
      errors: unknown[];
      result: Record<string, unknown>[] | null;
    };
    if (!response.ok || !reply.success || !reply.result) {
      throw new Error(`Cloudflare GET dns_records ${response.status}: ${JSON.stringify(reply.errors)}`);
    }
    if (reply.result.length === 0) break;
    results.push(...reply.result.map(camelCaseRecord));
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
  const response = await fetch(`${cloudflare.url}/zones/${zoneId}/dns_records/${registration.id}`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${cloudflare.apiToken}` },
  });
  if (!response.ok)
    throw new Error(`Cloudflare DELETE dns_records ${response.status}: ${await response.text()}`);
}
