/**
 * How the claimed-record provider reaches Cloudflare: the default provider's account, one
 * `RecordBatches` per account for the process (every resource's creates and deletes gather
 * there), and records looked up in the process's view of a zone (zone-view.ts).
 */
import { dnsRecordsApi, DnsRecordsApi } from "../cloudflare/dns-records";
import { accountKey } from "../cloudflare/fresh-zone-reads";
import { RecordBatches } from "../cloudflare/record-batches";
import type { ZoneRecord } from "../cloudflare/zone-record";
import { zoneView } from "../cloudflare/zone-view";
import { sameDomain } from "../dns/spf-record";
import { cloudflareSetting } from "./cloudflare-setting";

/** A Cloudflare account: its API's base URL and token. */
export interface CloudflareAccount {
  baseUrl: string;
  apiToken: string;
}

export function cloudflareAccount(): CloudflareAccount {
  return { baseUrl: cloudflareSetting("baseUrl"), apiToken: cloudflareSetting("apiToken") };
}

export function cloudflareApi(): DnsRecordsApi {
  return dnsRecordsApi(cloudflareAccount());
}

/** One `RecordBatches` per Cloudflare account in this process: every resource's writes gather there. */
const batches = new Map<string, RecordBatches>();

export function batchesFor(account: CloudflareAccount): RecordBatches {
  const key = accountKey(account);
  let found = batches.get(key);
  if (!found) batches.set(key, (found = new RecordBatches(dnsRecordsApi(account))));
  return found;
}

/**
 * The record `id` from the process's view of the zone; one the view does not hold is looked up by
 * its id before it is taken for gone (a zone of more than one page is read with offset paging, in
 * which a record can slip past a page while another is deleted).
 */
export async function recordById(
  api: DnsRecordsApi,
  account: CloudflareAccount,
  zoneId: string,
  id: string,
): Promise<ZoneRecord | undefined> {
  return (await zoneView(api, account, zoneId)).get(id) ?? (await api.get(zoneId, id));
}

/**
 * The records of `zone` named `name`. A create's check runs once per record against a zone of up
 * to thousands: `name` is made comparable once (Cloudflare answers names lowercase, without a
 * final dot), not each record's name.
 */
export function recordsNamed(zone: ReadonlyMap<string, ZoneRecord>, name: string): ZoneRecord[] {
  const wanted = name.toLowerCase().replace(/\.$/, "");
  return [...zone.values()].filter((record) =>
    record.name.endsWith(".") ? sameDomain(record.name, wanted) : record.name === wanted,
  );
}
