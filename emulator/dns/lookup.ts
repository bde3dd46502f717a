import { Answer } from "dns-packet";
import { isAtOrUnder, normaliseName } from "../cloudflare/names";
import { CloudflareDnsRecord, ZoneRecord } from "../store/state";
import { apexNsRecords, soaRecord, toResourceRecord } from "./resource-records";

/**
 * Authoritative lookup over the Cloudflare stand-in's zones and records. Pure: the server passes
 * the live state at query time, so a record created through the API answers at once.
 *
 * Wildcards are answered as RFC 4592 §3.3 says: a name that does not exist (no records at it and
 * none below it) is answered from the records at `*.<closest encloser>` (its nearest ancestor that
 * exists), with the question's name as owner; a name that exists, an empty non-terminal included,
 * is never matched; a CNAME there is followed as any CNAME. Cloudflare serves wildcard records of
 * every type, `*` only as the leftmost label (Cloudflare docs, "Wildcard DNS records"; the
 * stand-in refuses other names, names.ts), proxied or not; one covers deeper levels too, never the
 * apex nor a name with a record of its own (Cloudflare blog, "Wildcard proxy for everyone", 2022).
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
    const inZone = data.records.filter((record) => record.zoneId === zone.id);
    const atName = inZone.filter((record) => record.name === name);
    const wildcard = atName.length === 0 ? wildcardSource(zone, inZone, name) : undefined;
    const here = wildcard ?? atName;
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
    const exists = wildcard !== undefined || nameExists(zone, inZone, name);
    return {
      rcode: exists ? "NOERROR" : "NXDOMAIN",
      authoritative: true,
      answers,
      authorities: [soaRecord(zone, data.records)],
    };
  }
  return { rcode: "NOERROR", authoritative: true, answers, authorities: [] };
}

/** RFC 4592 §2.2.2: a name exists when it is the apex, owns records, or has records below it. */
function nameExists(zone: ZoneRecord, inZone: CloudflareDnsRecord[], name: string): boolean {
  return name === zone.name || inZone.some((r) => r.name === name || r.name.endsWith(`.${name}`));
}

/**
 * The records a name that does not exist is answered from (RFC 4592 §3.3.1): those of
 * `*.<closest encloser>`, none when that wildcard is an empty non-terminal (no data), undefined
 * when there is no such wildcard or the name exists.
 */
function wildcardSource(
  zone: ZoneRecord,
  inZone: CloudflareDnsRecord[],
  name: string,
): CloudflareDnsRecord[] | undefined {
  if (nameExists(zone, inZone, name)) return undefined;
  let encloser = name;
  do encloser = encloser.slice(encloser.indexOf(".") + 1);
  while (!nameExists(zone, inZone, encloser));
  const source = `*.${encloser}`;
  return nameExists(zone, inZone, source) ? inZone.filter((record) => record.name === source) : undefined;
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
