import type { Emulator } from "../../emulator";
import { quoteTxt } from "../../provider/dns";

/** The include the emulator's service puts in its domains' SPF records (Postal's default, `spf.postal.<zone>`). */
export const SERVICE_INCLUDE = "spf.postal.example.com";

/**
 * Publishes an SPF record of the service's at `SERVICE_INCLUDE` in the emulator's zone and returns
 * its id: a record of the zone wins over the one the emulator's DNS serves there by itself
 * (emulator/dns/service-records.ts), so a test can change what the include leads to.
 */
export async function publishServiceSpf(
  emulator: Emulator,
  content = "v=spf1 ip4:192.0.2.0/24 ~all",
): Promise<string> {
  const zone = emulator.cloudflare.zones[0].id;
  const record = await emulator.cloudflare.addRecord(zone, {
    name: SERVICE_INCLUDE,
    type: "TXT",
    content: quoteTxt(content),
    ttl: 300,
  });
  return record.id;
}

/** A and AAAA records at `name`, so that an `a` or `mx` lookup of it finds something for IPv4 and IPv6 clients. */
export async function publishAddresses(emulator: Emulator, name: string): Promise<string[]> {
  const ids: string[] = [];
  for (const [type, content] of [
    ["A", "192.0.2.53"],
    ["AAAA", "2001:db8::53"],
  ]) {
    const record = await emulator.cloudflare.addRecord(emulator.cloudflare.zones[0].id, {
      name,
      type,
      content,
      ttl: 300,
    });
    ids.push(record.id);
  }
  return ids;
}

/**
 * Zones for an emulator whose DNS also answers for Google's SPF include, as the internet does: a
 * test that merges the service's include into `v=spf1 include:_spf.google.com ~all` and waits for
 * verification needs receivers' lookups of it answered (a lookup that fails is never a pass).
 * example.com stays the first zone.
 */
export const ZONES_WITH_GOOGLE = ["example.com", "google.com"];

/** Google's SPF record, where `ZONES_WITH_GOOGLE` lets the emulator serve it (one network stands for Google's). */
export async function publishGoogleSpf(emulator: Emulator): Promise<void> {
  const google = emulator.cloudflare.zones.find((zone) => zone.name === "google.com");
  if (!google) throw new Error("publishGoogleSpf: start the emulator with ZONES_WITH_GOOGLE");
  await emulator.cloudflare.addRecord(google.id, {
    name: "_spf.google.com",
    type: "TXT",
    content: quoteTxt("v=spf1 ip4:198.51.100.0/24 ~all"),
    ttl: 300,
  });
}
