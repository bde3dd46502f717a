import { processState, ZoneViewRead } from "../process-state";
import type { DnsRecordsApi } from "./dns-records";
import { accountZoneKey } from "./fresh-zone-reads";
import type { ZoneRecord } from "./zone-record";

/**
 * One provider process's view of a zone, for the operations that come by the thousand in one
 * command: a refresh's reads, a destroy's deletes, the creates of records no policy lets take
 * over anything (`fail`). Each is served by a whole-zone read (5,000 records a request) sent at
 * most `ZONE_VIEW_MAX_AGE_MS` before, with this process's own writes since applied to it: 5,000
 * reads, or the checks before 5,000 creates, cost a few requests, not 5,000.
 *
 * Why a few seconds behind is enough: the engine runs a command's operations `--parallel` at a
 * time, so a check of the zone the program made at registration is already seconds old when the
 * Cloudflare provider writes (what a `cloudflare.DnsRecord` did before), and a refresh is a
 * picture of the zone taken while it runs either way. What must see the zone as it is now (a
 * record taken over, whose contents destroy puts back) reads it fresh (`fresh-zone-reads.ts`).
 */

/** How old a read may be when it serves an operation. */
export const ZONE_VIEW_MAX_AGE_MS = 5_000;

/** Per Cloudflare account (base URL, token hash) and zone, for the whole process (every copy of the package). */
function viewsOf(realm: object = globalThis): Map<string, ZoneViewRead> {
  const state = processState(realm);
  return (state.zoneViews ??= new Map());
}

/**
 * The zone's records by id, as a read sent at most `maxAgeMs` ago found them, with this process's writes
 * since (`viewAdded`, `viewRemoved`) applied. One read in flight per zone: callers that come while
 * it is under way share it.
 */
export async function zoneView(
  api: Pick<DnsRecordsApi, "listZone">,
  account: { baseUrl: string; apiToken: string },
  zoneId: string,
  now: () => number = Date.now,
  maxAgeMs = ZONE_VIEW_MAX_AGE_MS,
): Promise<ReadonlyMap<string, ZoneRecord>> {
  const key = accountZoneKey(account, zoneId);
  const views = viewsOf();
  let view = views.get(key);
  if (!view || now() - view.at >= maxAgeMs) {
    const records = api.listZone(zoneId).then((list) => new Map(list.map((record) => [record.id, record])));
    const fresh: ZoneViewRead = { at: now(), records };
    view = fresh;
    views.set(key, fresh);
    // A failed read is not shared: the next caller tries again.
    records.catch(() => {
      if (views.get(key) === fresh) views.delete(key);
    });
  }
  return view.records;
}

/** A record this process made (or wrote) in the zone: the view holds it from now on. */
export async function viewAdded(
  account: { baseUrl: string; apiToken: string },
  zoneId: string,
  record: ZoneRecord,
): Promise<void> {
  const view = viewsOf().get(accountZoneKey(account, zoneId));
  if (view) (await view.records.catch(() => undefined))?.set(record.id, record);
}

/** A record this process deleted: the view no longer holds it. */
export async function viewRemoved(
  account: { baseUrl: string; apiToken: string },
  zoneId: string,
  id: string,
): Promise<void> {
  const view = viewsOf().get(accountZoneKey(account, zoneId));
  if (view) (await view.records.catch(() => undefined))?.delete(id);
}

/**
 * Forgets every view of the process (of `realm`'s copies of the package): what a new provider
 * process starts with. The test kit calls it at each command, and tests that count requests.
 */
export function forgetZoneViews(realm: object = globalThis): void {
  viewsOf(realm).clear();
}
