import type { DnsRecord } from "../../provider/client";
import { cloudflareRecordArgs } from "../../provider/dns";
import type { Emulator } from "../../emulator";

/**
 * Publishes a domain's records in the emulator's Cloudflare stand-in the way the Domain component
 * does (same argument mapping, same request as the Cloudflare provider), so the emulator's DNS
 * server serves them to the domain check.
 */
export async function publishRecords(emulator: Emulator, records: DnsRecord[]): Promise<string[]> {
  const zone = emulator.cloudflare.zones[0];
  const ids: string[] = [];
  for (const record of records) {
    const args = cloudflareRecordArgs(record, { zoneId: zone.id, ttl: 300, comment: "test" });
    const { zoneId, ...body } = args;
    const response = await fetch(`${emulator.cloudflare.url}/zones/${zoneId}/dns_records`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${emulator.cloudflare.apiToken}`,
        "Content-Type": "application/json",
      },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { success: boolean; errors: unknown[]; result: { id: string } };
    if (!answer.success)
      throw new Error(`publishing ${record.type} ${record.name}: ${JSON.stringify(answer.errors)}`);
    ids.push(answer.result.id);
  }
  return ids;
}

/** Deletes published records from the stand-in (to break a check after it passed). */
export async function unpublishRecords(emulator: Emulator, ids: string[]): Promise<void> {
  const zone = emulator.cloudflare.zones[0];
  for (const id of ids) {
    await fetch(`${emulator.cloudflare.url}/zones/${zone.id}/dns_records/${id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${emulator.cloudflare.apiToken}` },
    });
  }
}

/**
 * Cloudflare's DNS-records API of the stand-in's zone, as a user's own tooling or the dashboard
 * calls it (`path` follows `/zones/{zone}/dns_records`): the answer's `result`. Throws naming the
 * call when Cloudflare says it failed.
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
