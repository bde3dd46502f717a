import { Answer } from "dns-packet";
import { isAtOrUnder, normaliseName } from "../cloudflare/names";
import { CloudflareDnsRecord, ZoneRecord } from "../store/state";
import { apexNsRecords, soaRecord, toResourceRecord } from "./resource-records";

/**
 * Authoritative lookup over the Cloudflare stand-in's zones and records. Pure: the server passes
 * the live state at query time, so a record created through the API answers at once.
 */

export interface ZoneData {
  zones: ZoneRecord[];
  records: CloudflareDnsRecord[];
}

export type Rcode = "NOERROR" | "NXDOMAIN" | "REFUSED";

export interface LookupResult {
  rcode: Rcode;
  authoritative: boolean;
  answers: Answer[];
  authorities: Answer[];
}

/** CNAME chains longer than this are cut short (they are loops or mistakes). */
const MAX_CNAME_HOPS = 8;

/** The zone a name belongs to: the longest zone name it ends with. */
export function findZone(zones: ZoneRecord[], name: string): ZoneRecord | undefined {
  return zones
    .filter((zone) => isAtOrUnder(name, zone.name))
    .reduce<ZoneRecord | undefined>(
      (best, zone) => (!best || zone.name.length > best.name.length ? zone : best),
      undefined,
    );
}

export function lookup(data: ZoneData, questionName: string, type: string): LookupResult {
  const answers: Answer[] = [];
  let name = normaliseName(questionName);
  // The first owner name echoes the question's spelling (resolvers may randomise case).
  let ownerName = questionName.replace(/\.$/, "");

  for (let hop = 0; hop <= MAX_CNAME_HOPS; hop++) {
    const zone = findZone(data.zones, name);
    if (!zone) {
      // Outside our zones: refuse the question; after a CNAME hop, answer what we have.
      return hop === 0
        ? { rcode: "REFUSED", authoritative: false, answers: [], authorities: [] }
        : { rcode: "NOERROR", authoritative: true, answers, authorities: [] };
    }
    const here = data.records.filter((record) => record.zoneId === zone.id && record.name === name);
    const proxied = here.filter((record) => record.proxied);
    if (proxied.length > 0) {
      const edge = proxiedAnswer(here, type, ownerName);
      if (edge) {
        return edge.length > 0
          ? { rcode: "NOERROR", authoritative: true, answers: [...answers, ...edge], authorities: [] }
          : { rcode: "NOERROR", authoritative: true, answers, authorities: [soaRecord(zone, data.records)] };
      }
    }
    const cname = here.find((record) => record.type === "CNAME");
    if (cname && type !== "CNAME" && type !== "ANY") {
      answers.push(toResourceRecord(cname, ownerName)!);
      name = normaliseName(cname.content);
      ownerName = name;
      continue;
    }

    const matching = recordsOfType(zone, here, name, type, data.records, ownerName);
    if (matching.length > 0) {
      return { rcode: "NOERROR", authoritative: true, answers: [...answers, ...matching], authorities: [] };
    }
    const exists =
      name === zone.name ||
      here.length > 0 ||
      data.records.some((r) => r.zoneId === zone.id && r.name.endsWith(`.${name}`));
    return {
      rcode: exists ? "NOERROR" : "NXDOMAIN",
      authoritative: true,
      answers,
      authorities: [soaRecord(zone, data.records)],
    };
  }
  return { rcode: "NOERROR", authoritative: true, answers, authorities: [] };
}

/**
 * Cloudflare's own addresses for proxied names (from its published ranges, 104.16.0.0/13 and
 * 2606:4700::/32): DNS answers a proxied name with its edge, never with the record's content.
 */
export const CLOUDFLARE_EDGE = {
  A: ["104.16.132.229", "104.16.133.229"],
  AAAA: ["2606:4700::6810:84e5", "2606:4700::6810:85e5"],
};

/**
 * A name with a proxied record, answered as Cloudflare answers it: A and AAAA with its edge
 * addresses (whatever the origin holds); a proxied CNAME is never shown, and nothing else answers
 * beside it (empty: no data). Undefined: the question is answered from the stored records (another
 * type at a proxied A or AAAA name).
 */
function proxiedAnswer(here: CloudflareDnsRecord[], type: string, ownerName: string): Answer[] | undefined {
  if (type === "A" || type === "AAAA") {
    return CLOUDFLARE_EDGE[type].map((address) => ({
      name: ownerName,
      type,
      ttl: 300,
      class: "IN" as const,
      data: address,
    }));
  }
  if (here.some((record) => record.proxied && record.type === "CNAME")) return [];
  return undefined;
}

function recordsOfType(
  zone: ZoneRecord,
  here: CloudflareDnsRecord[],
  name: string,
  type: string,
  all: CloudflareDnsRecord[],
  ownerName: string,
): Answer[] {
  const stored = here
    .filter((record) => type === "ANY" || record.type === type)
    .map((record) => toResourceRecord(record, ownerName))
    .filter((answer): answer is Answer => answer !== undefined);
  if (name !== zone.name) return stored;
  // The apex always has the zone's SOA and, unless records override them, Cloudflare's NS.
  const soa = type === "SOA" || type === "ANY" ? [{ ...soaRecord(zone, all), name: ownerName }] : [];
  const hasStoredNs = here.some((record) => record.type === "NS");
  const ns =
    (type === "NS" || type === "ANY") && !hasStoredNs
      ? apexNsRecords(zone).map((r) => ({ ...r, name: ownerName }))
      : [];
  return [...stored, ...soa, ...ns];
}
