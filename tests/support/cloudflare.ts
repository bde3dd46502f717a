import type { DnsRecord } from "../../provider/client";
import { cloudflareRecordArgs } from "../../provider/dns";
import type { Emulator } from "../../emulator";

/**
 * Publishes a domain's records in the emulator's Cloudflare stand-in the way the Domain component
 * does (same argument mapping, same body as the Cloudflare provider sends), so the emulator's DNS
 * server serves them to the domain check.
 */
export async function publishRecords(emulator: Emulator, records: DnsRecord[]): Promise<string[]> {
  const zone = emulator.cloudflare.zones[0];
  const ids: string[] = [];
  for (const record of records) {
    const { zoneId, ...body } = cloudflareRecordArgs(record, { zoneId: zone.id, ttl: 300, comment: "test" });
    ids.push((await emulator.cloudflare.addRecord(zoneId, body)).id);
  }
  return ids;
}

/** Deletes published records from the stand-in (to break a check after it passed). */
export async function unpublishRecords(emulator: Emulator, ids: string[]): Promise<void> {
  const zone = emulator.cloudflare.zones[0];
  for (const id of ids) await emulator.cloudflare.removeRecord(zone.id, id);
}

/**
 * Cloudflare's DNS-records API of the stand-in's zone over HTTP, as a user's own tooling or the
 * dashboard calls it (`path` follows `/zones/{zone}/dns_records`): the answer's `result`. Throws
 * naming the call when Cloudflare says it failed. For edits the seeding methods do not make (PUT,
 * PATCH); records are added, listed and deleted with `emulator.cloudflare.addRecord`, ….
 */
export async function zoneRecordsApi(
  emulator: Emulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const zoneId = emulator.cloudflare.zones[0].id;
  const response = await fetch(`${emulator.cloudflare.url}/zones/${zoneId}/dns_records${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${emulator.cloudflare.apiToken}`,
      "Content-Type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as {
    success: boolean;
    result: Record<string, unknown>;
    errors: unknown;
  };
  if (!answer.success) throw new Error(`${method} ${path}: ${JSON.stringify(answer.errors)}`);
  return answer.result;
}
