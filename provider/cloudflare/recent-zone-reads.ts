import type { DnsRecordsApi } from "./dns-records";
import { accountZoneKey } from "./fresh-zone-reads";
import type { ZoneRecord } from "./zone-record";

/**
 * Whole-zone reads shared for a minute, for what only explains (a failed verification's
 * diagnosis shows what the zone holds): Cloudflare allows 1,200 API requests per 5 minutes,
 * account-wide, so 1,000 verifications failing in one zone must cost a read or two of it (5,000
 * records a request), not one per domain or per name. Writes never use these: they read the zone
 * fresh (`fresh-zone-reads.ts`).
 */

/** How old a shared read may be: a diagnosis a minute behind the zone still says what went wrong. */
export const RECENT_ZONE_READ_MAX_AGE_MS = 60_000;

/** Per Cloudflare account (base URL, token hash) and zone, in this process. */
const reads = new Map<string, { at: number; records: Promise<ZoneRecord[]> }>();

/**
 * The zone's records, from a read sent at most `RECENT_ZONE_READ_MAX_AGE_MS` ago and not before
 * `notBefore` (the caller's wait began then, after its records were written: an older read could
 * miss them). One read in flight at a time.
 */
export function recentZoneRecords(
  api: DnsRecordsApi,
  account: { baseUrl: string; apiToken: string },
  zoneId: string,
  notBefore: number,
  now: () => number = Date.now,
): Promise<ZoneRecord[]> {
  const key = accountZoneKey(account, zoneId);
  const shared = reads.get(key);
  if (shared && shared.at >= notBefore && now() - shared.at < RECENT_ZONE_READ_MAX_AGE_MS)
    return shared.records;
  const records = api.listZone(zoneId);
  reads.set(key, { at: now(), records });
  // A failed read is not shared: the next diagnosis tries again.
  records.catch(() => {
    if (reads.get(key)?.records === records) reads.delete(key);
  });
  return records;
}

/** Forgets every shared read (tests). */
export function forgetRecentZoneReads(): void {
  reads.clear();
}
