import type { DnsRecord } from "../provider/client";
import { cloudflareRecordArgs } from "../provider/dns";
import { BenchEmulator, send } from "./emulator-process";

/**
 * A domain's DNS records in the Cloudflare stand-in, sent by the bench as the Cloudflare provider
 * sends them for the Domain component's records: one request per record and per step (create:
 * POST, refresh: GET of the record, delete: DELETE), with the component's argument mapping. The
 * Cloudflare provider itself is not run: these stand for its requests, so that the counts of a
 * lifecycle include what a domain's records cost, and so the emulator's DNS server serves them
 * to the domain check.
 */
export interface PublishedRecords {
  ids: string[];
}

async function cloudflare(
  emulator: BenchEmulator,
  method: string,
  what: string,
  body?: unknown,
): Promise<{ id: string }> {
  const text = await send(`${emulator.cloudflare.url}/zones/${emulator.cloudflare.zones[0].id}/${what}`, {
    method,
    headers: { Authorization: `Bearer ${emulator.cloudflare.apiToken}` },
    body,
  });
  const answer = JSON.parse(text) as { success: boolean; errors: unknown[]; result: { id: string } };
  if (!answer.success) throw new Error(`${method} ${what}: ${JSON.stringify(answer.errors)}`);
  return answer.result;
}

/** Creates the records (one POST each), as the Domain component's Cloudflare records are created. */
export async function publishRecords(
  emulator: BenchEmulator,
  records: DnsRecord[],
): Promise<PublishedRecords> {
  const zoneId = emulator.cloudflare.zones[0].id;
  const ids = await Promise.all(
    records.map(async (record) => {
      const args = cloudflareRecordArgs(record, { zoneId, ttl: 300, comment: "bench" });
      // The zone is in the path, not the body (undefined members are left out of the JSON).
      return (await cloudflare(emulator, "POST", "dns_records", { ...args, zoneId: undefined })).id;
    }),
  );
  return { ids };
}

/** Reads each record (one GET each), as a refresh reads a Cloudflare record. */
export async function readRecords(emulator: BenchEmulator, published: PublishedRecords): Promise<void> {
  await Promise.all(published.ids.map((id) => cloudflare(emulator, "GET", `dns_records/${id}`)));
}

/** Deletes each record (one DELETE each). */
export async function deleteRecords(emulator: BenchEmulator, published: PublishedRecords): Promise<void> {
  await Promise.all(published.ids.map((id) => cloudflare(emulator, "DELETE", `dns_records/${id}`)));
}
