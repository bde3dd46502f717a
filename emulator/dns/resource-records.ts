import { Answer } from "dns-packet";
import { zoneNameServers } from "../cloudflare/zones";
import { txtCharacterStrings } from "../cloudflare/txt-content";
import { CloudflareDnsRecord, ZoneRecord } from "../store/state";

/** Stored Cloudflare records (and the zone's own SOA/NS) as dns-packet resource records. */

/** Cloudflare serves "automatic" TTL (1) as 300 seconds. */
const AUTOMATIC_TTL = 300;
/** Short negative TTL: records appear through the stand-in at any moment and must be seen at once. */
const SOA_TTL = 60;

export function toResourceRecord(record: CloudflareDnsRecord, ownerName = record.name): Answer | undefined {
  const ttl = record.ttl === 1 ? AUTOMATIC_TTL : record.ttl;
  const base = { name: ownerName, ttl, class: "IN" as const };
  const target = record.content.replace(/\.$/, "");
  switch (record.type) {
    case "A":
    case "AAAA":
      return { ...base, type: record.type, data: record.content };
    case "CNAME":
    case "NS":
      return { ...base, type: record.type, data: target };
    case "MX":
      return { ...base, type: "MX", data: { preference: record.priority ?? 0, exchange: target } };
    case "TXT":
      return { ...base, type: "TXT", data: txtCharacterStrings(record.content) };
    default:
      return undefined;
  }
}

/**
 * The zone's SOA, shaped like Cloudflare's (primary = first name server, `dns.cloudflare.com`
 * mailbox). The serial follows the latest record change so it moves when the zone does.
 */
export function soaRecord(zone: ZoneRecord, records: CloudflareDnsRecord[]): Answer {
  const latest = records
    .filter((record) => record.zoneId === zone.id)
    .reduce((max, record) => Math.max(max, Date.parse(record.modifiedOn)), Date.parse(zone.createdOn));
  return {
    name: zone.name,
    type: "SOA",
    ttl: SOA_TTL,
    class: "IN",
    data: {
      mname: zoneNameServers(zone)[0],
      rname: "dns.cloudflare.com",
      serial: Math.floor(latest / 1000) >>> 0,
      refresh: 10000,
      retry: 2400,
      expire: 604800,
      minimum: SOA_TTL,
    },
  };
}

export function apexNsRecords(zone: ZoneRecord): Answer[] {
  return zoneNameServers(zone).map((server) => ({
    name: zone.name,
    type: "NS" as const,
    ttl: 86400,
    class: "IN" as const,
    data: server,
  }));
}
