import { createHash } from "node:crypto";
import { Store } from "../store/store";
import { ZoneRecord } from "../store/state";
import { ServiceResponse } from "../http/service";
import { success } from "./envelope";
import { cloudflareErrors } from "./errors";
import { cloudflareTimestamp } from "./ids";
import { isAtOrUnder, normaliseName } from "./names";
import { paginate, readPageRequest, sortBy } from "./paging";

/** The one account every emulated zone belongs to (the id is Cloudflare's documentation example). */
export const EMULATOR_ACCOUNT = { id: "023e105f4ecef8ad9ca31a8372d0c353", name: "Emulator account" };

const NAME_SERVER_POOL = [
  "ada",
  "bob",
  "carl",
  "dana",
  "ed",
  "fay",
  "gene",
  "hal",
  "ivy",
  "jay",
  "kim",
  "lou",
];

/** Two Cloudflare-style name servers, fixed per zone (derived from its id). */
export function zoneNameServers(zone: ZoneRecord): string[] {
  const first = parseInt(zone.id.slice(0, 2), 16) % NAME_SERVER_POOL.length;
  const second =
    (first + 1 + (parseInt(zone.id.slice(2, 4), 16) % (NAME_SERVER_POOL.length - 1))) %
    NAME_SERVER_POOL.length;
  return [first, second].map((index) => `${NAME_SERVER_POOL[index]}.ns.cloudflare.com`);
}

/** Adds a zone (the emulator's setup step; the API cannot create zones). Idempotent by name. */
export function addZone(store: Store, name: string): ZoneRecord {
  const zoneName = normaliseName(name);
  const existing = store.state.cloudflare.zones.find((zone) => zone.name === zoneName);
  if (existing) return existing;
  // Derived from the name, so a zone keeps its id across restarts without a state file and stack
  // config can name it. Still 32 hex characters, like Cloudflare's own (opaque) ids.
  const id = createHash("md5").update(`zone:${zoneName}`).digest("hex");
  const zone: ZoneRecord = { id, name: zoneName, createdOn: cloudflareTimestamp() };
  store.state.cloudflare.zones.push(zone);
  store.changed();
  return zone;
}

/**
 * The zone named by its id or its name (the emulator's seeding takes either); Cloudflare's
 * "Invalid zone identifier" when none is.
 */
export function zoneByIdOrName(store: Store, idOrName: string): ZoneRecord {
  const name = normaliseName(idOrName);
  const zone = store.state.cloudflare.zones.find(
    (candidate) => candidate.id === idOrName || candidate.name === name,
  );
  if (!zone) throw cloudflareErrors.zoneNotFound();
  return zone;
}

/** The zone `name` is in (the longest zone name it is at or under), if the emulator holds one. */
export function zoneHolding(store: Store, name: string): ZoneRecord | undefined {
  const fqdn = normaliseName(name);
  return store.state.cloudflare.zones
    .filter((zone) => isAtOrUnder(fqdn, zone.name))
    .sort((a, b) => b.name.length - a.name.length)[0];
}

/** The zone a path names, or 404. */
export function requireZone(store: Store, zoneId: string): ZoneRecord {
  const zone = store.state.cloudflare.zones.find((candidate) => candidate.id === zoneId);
  if (!zone) throw cloudflareErrors.zoneNotFound();
  return zone;
}

/** A zone as `GET /zones/{id}` returns it; the provider reads few of these and tolerates the rest. */
export function zoneJson(zone: ZoneRecord): Record<string, unknown> {
  return {
    id: zone.id,
    name: zone.name,
    status: "active",
    paused: false,
    type: "full",
    development_mode: 0,
    name_servers: zoneNameServers(zone),
    original_name_servers: null,
    original_registrar: null,
    original_dnshost: null,
    vanity_name_servers: [],
    created_on: zone.createdOn,
    modified_on: zone.createdOn,
    activated_on: zone.createdOn,
    meta: { step: 2, custom_certificate_quota: 0, page_rule_quota: 3, phishing_detected: false },
    owner: { id: null, type: "user", email: null },
    account: { ...EMULATOR_ACCOUNT },
    tenant: { id: null, name: null },
    tenant_unit: { id: null },
    permissions: ["#dns_records:edit", "#dns_records:read", "#zone:read"],
    plan: {
      id: "0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
      name: "Free Website",
      price: 0,
      currency: "USD",
      frequency: "",
      is_subscribed: false,
      can_subscribe: false,
      legacy_id: "free",
      legacy_discount: false,
      externally_managed: false,
    },
  };
}

/** `GET /zones`: `name` (exact), `status`, `account.id`, `account.name`, `match`, `order`, paging. */
export function listZones(store: Store, query: URLSearchParams): ServiceResponse {
  const conditions: ((zone: ZoneRecord) => boolean)[] = [];
  const name = query.get("name");
  if (name !== null) conditions.push((zone) => zone.name === normaliseName(name));
  const status = query.get("status");
  if (status !== null) conditions.push(() => status === "active");
  const accountId = query.get("account.id");
  if (accountId !== null) conditions.push(() => accountId === EMULATOR_ACCOUNT.id);
  const accountName = query.get("account.name");
  if (accountName !== null) conditions.push(() => accountName === EMULATOR_ACCOUNT.name);

  const any = query.get("match") === "any";
  const matches = (zone: ZoneRecord) =>
    conditions.length === 0 || (any ? conditions.some((c) => c(zone)) : conditions.every((c) => c(zone)));
  const order = query.get("order") === "name" ? (zone: ZoneRecord) => zone.name : undefined;
  const zones = sortBy(store.state.cloudflare.zones.filter(matches), order, query.get("direction"));
  const page = paginate(zones, readPageRequest(query, { defaultPerPage: 20, minPerPage: 5, maxPerPage: 50 }));
  return success(page.items.map(zoneJson), page.info);
}
