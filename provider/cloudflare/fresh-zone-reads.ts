import { createHash } from "node:crypto";
import type { DnsRecordsApi } from "./dns-records";
import type { ZoneRecord } from "./zone-record";

/**
 * The zone as it is now, for a write that must see it so (a claimed record decides what to do
 * with the records at its name just before it writes): each caller gets records read by a request
 * sent after it asked, shared with every caller that asks before that request is sent. A burst of
 * claimed records being created together costs one read of the zone, not one per record.
 *
 * A read is of the whole zone (5,000 records a request) unless the callers of one read ask about
 * fewer names than the zone's last whole read took requests: then one request per name.
 */

/** Callers waiting for the next read of one zone, and the names they asked about. */
interface Batch {
  names: Set<string>;
  records: Promise<Map<string, ZoneRecord[]>>;
}

interface ZoneState {
  inFlight?: Promise<unknown>;
  next?: Batch;
  /** Requests the zone's last whole read took (undefined before one). */
  wholeReadRequests?: number;
}

/** Per Cloudflare account (base URL and token) and zone, in this process. */
const zones = new Map<string, ZoneState>();

/** Records per request of a whole-zone read (`DnsRecordsApi.listZone`). */
const ZONE_PER_PAGE = 5000;

/**
 * The records named `name` in `zoneId`, read after this call began. `account` tells apart the
 * Cloudflare accounts a process may write to (its base URL and token; only a hash is kept).
 */
export function freshRecordsAt(
  api: DnsRecordsApi,
  account: { baseUrl: string; apiToken: string },
  zoneId: string,
  name: string,
): Promise<ZoneRecord[]> {
  const wanted = normalName(name);
  const key = accountZoneKey(account, zoneId);
  let zone = zones.get(key);
  if (!zone) zones.set(key, (zone = {}));
  let batch = zone.next;
  if (!batch) batch = zone.next = startBatch(api, zone, zoneId);
  batch.names.add(wanted);
  return batch.records.then((byName) => byName.get(wanted) ?? []);
}

/**
 * One zone of one Cloudflare account (its base URL and token) as a key of process-wide state:
 * only a hash of the token is kept.
 */
export function accountZoneKey(account: { baseUrl: string; apiToken: string }, zoneId: string): string {
  return `${accountKey(account)} ${zoneId}`;
}

/** One Cloudflare account (its base URL and token) as a key of process-wide state: a hash of the token. */
export function accountKey(account: { baseUrl: string; apiToken: string }): string {
  return `${account.baseUrl} ${createHash("sha256").update(account.apiToken).digest("hex")}`;
}

/** Forgets every zone's state (tests that count requests from a fresh process's point of view). */
export function forgetFreshZoneReads(): void {
  zones.clear();
}

/**
 * The next read of a zone: sent once the read in flight (sent before these callers asked) has
 * settled, or at the next microtask when none is, so that callers of the same turn share it.
 */
function startBatch(api: DnsRecordsApi, zone: ZoneState, zoneId: string): Batch {
  const batch: Batch = { names: new Set(), records: Promise.resolve(new Map()) };
  const previous = zone.inFlight ?? Promise.resolve();
  batch.records = previous
    .then(
      () => undefined,
      () => undefined,
    )
    .then(() => {
      if (zone.next === batch) zone.next = undefined;
      const read = readNames(api, zone, zoneId, batch.names);
      zone.inFlight = read;
      const done = () => {
        if (zone.inFlight === read) zone.inFlight = undefined;
      };
      read.then(done, done);
      return read;
    });
  return batch;
}

async function readNames(
  api: DnsRecordsApi,
  zone: ZoneState,
  zoneId: string,
  names: ReadonlySet<string>,
): Promise<Map<string, ZoneRecord[]>> {
  const byName = new Map<string, ZoneRecord[]>();
  if (zone.wholeReadRequests !== undefined && names.size < zone.wholeReadRequests) {
    await Promise.all([...names].map(async (name) => byName.set(name, await api.list(zoneId, { name }))));
    return byName;
  }
  const records = await api.listZone(zoneId);
  zone.wholeReadRequests = Math.max(1, Math.ceil(records.length / ZONE_PER_PAGE));
  for (const record of records) {
    const name = normalName(record.name);
    if (names.has(name)) byName.set(name, [...(byName.get(name) ?? []), record]);
  }
  // Several pages are offset paging: a record deleted elsewhere meanwhile can make one slip onto a
  // page already read. Each name is confirmed by a read of its own (one page), and both count.
  if (zone.wholeReadRequests > 1) {
    await Promise.all(
      [...names].map(async (name) => {
        const seen = new Set((byName.get(name) ?? []).map((record) => record.id));
        const alone = (await api.list(zoneId, { name })).filter((record) => !seen.has(record.id));
        byName.set(name, [...(byName.get(name) ?? []), ...alone]);
      }),
    );
  }
  return byName;
}

function normalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}
