import { splitQuotedString } from "../cloudflare/txt-content";
import type { MailDnsConfig } from "../config";
import { findZone, ZoneData } from "./lookup";
import type { CloudflareDnsRecord } from "../store/state";

/**
 * The records the email service's installation publishes in its own DNS, which a user's zone never
 * holds, as Postal's DNS guide (docs.postalserver.io, "DNS configuration") lists them:
 * - `dns.spf_include`: the SPF record of the service's sending networks, what the include every
 *   domain publishes leads to (documentation ranges here, 192.0.2.0/24 and 2001:db8::/32);
 * - each of `dns.mx_records`: an address (A and AAAA) in those networks, as the service sends
 *   from its MX hosts, so a domain's `mx` SPF term finds them;
 * - `dns.return_path_domain`, the envelope sender's domain of domains without their own return
 *   path: an address, an MX (the MX hosts, which take the bounces) and the SPF record the guide
 *   gives, `v=spf1 a mx include:<spf_include> ~all`;
 * - `<dkim_identifier>._domainkey.<return_path_domain>`: the installation's DKIM key, which signs
 *   the mail of domains whose DKIM check is not OK (`postal default-dkim-record`).
 * Receivers follow these when they judge the service's mail, so the DNS server answers them, at a
 * name in one of the stand-in's zones where no record of that zone is (the user's own records
 * win). They are never in the Cloudflare stand-in's records: a zone read does not see them.
 */
export const SERVICE_SPF = "v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 ~all";

/** The return-path host's address (A, AAAA). */
export const RETURN_PATH_ADDRESS = { a: "192.0.2.1", aaaa: "2001:db8::1" } as const;

/** The settings the installation's records are made from. */
export type ServiceDns = Pick<
  MailDnsConfig,
  "spfInclude" | "returnPathDomain" | "mxRecords" | "dkimIdentifier"
>;

/** The `index`th MX host's address (A, AAAA): 192.0.2.10 and 2001:db8::10 for the first. */
export function mxHostAddress(index: number): { a: string; aaaa: string } {
  const host = 10 + (index % 240);
  // The same digits in both: 2001:db8::10 is 0x10, still inside 2001:db8::/32.
  return { a: `192.0.2.${host}`, aaaa: `2001:db8::${host}` };
}

/**
 * The host the service's mail leaves from: its name in HELO (the first MX host: the emulated
 * installation's `dns.helo_hostname`) and its IPv4 address, inside the SPF include's networks.
 */
export function sendingHost(dns: Pick<MailDnsConfig, "returnPathDomain" | "mxRecords">): {
  helo: string;
  clientIp: string;
} {
  const [first] = dns.mxRecords;
  return first === undefined
    ? { helo: bare(dns.returnPathDomain), clientIp: RETURN_PATH_ADDRESS.a }
    : { helo: bare(first), clientIp: mxHostAddress(0).a };
}

/** The installation's DKIM record (Postal's `rp_dkim_dns_record`, as a domain's). */
export function installationDkimRecord(publicKey: string): string {
  return `v=DKIM1; t=s; h=sha256; p=${publicKey};`;
}

type ServiceRecord = Pick<CloudflareDnsRecord, "name" | "type" | "content" | "priority">;

/** Every record of the installation's, by name (lowercase, no final dot). */
export function serviceRecords(dns: ServiceDns, signingPublicKey?: string): ServiceRecord[] {
  const returnPath = bare(dns.returnPathDomain);
  const mxHosts = dns.mxRecords.map(bare);
  const record = (name: string, type: string, content: string, priority: number | null = null) => ({
    name,
    type,
    content,
    priority,
  });
  const txt = (name: string, value: string) =>
    record(
      name,
      "TXT",
      splitQuotedString(value.replace(/[\\"]/g, "\\$&"))
        .map((s) => `"${s}"`)
        .join(" "),
    );
  const addresses = (name: string, address: { a: string; aaaa: string }) => [
    record(name, "A", address.a),
    record(name, "AAAA", address.aaaa),
  ];
  return [
    txt(bare(dns.spfInclude), SERVICE_SPF),
    ...mxHosts.flatMap((host, index) => addresses(host, mxHostAddress(index))),
    ...addresses(returnPath, RETURN_PATH_ADDRESS),
    ...mxHosts.map((host) => record(returnPath, "MX", host, 10)),
    txt(returnPath, `v=spf1 a mx include:${bare(dns.spfInclude)} ~all`),
    ...(signingPublicKey === undefined
      ? []
      : [txt(`${dns.dkimIdentifier}._domainkey.${returnPath}`, installationDkimRecord(signingPublicKey))]),
  ];
}

/**
 * `serviceRecords` of a configuration and key, made once: every DNS question asks for them, and
 * cutting the DKIM key's TXT into strings byte by byte took longer than answering.
 */
const madeRecords = new WeakMap<ServiceDns, Map<string | undefined, MadeRecords>>();

/** The records, and the names they are at. */
interface MadeRecords {
  records: ServiceRecord[];
  names: Set<string>;
}

function serviceRecordsOnce(dns: ServiceDns, signingPublicKey?: string): MadeRecords {
  let byKey = madeRecords.get(dns);
  if (!byKey) madeRecords.set(dns, (byKey = new Map()));
  let made = byKey.get(signingPublicKey);
  if (!made) {
    const records = serviceRecords(dns, signingPublicKey);
    byKey.set(signingPublicKey, (made = { records, names: new Set(records.map((record) => record.name)) }));
  }
  return made;
}

/** The zones with the installation's records added where they are answered (see above). */
export function withServiceRecords(data: ZoneData, dns: ServiceDns, signingPublicKey?: string): ZoneData {
  const added: CloudflareDnsRecord[] = [];
  const { records, names } = serviceRecordsOnce(dns, signingPublicKey);
  // The zones' records at those names, in one pass (a zone may hold thousands).
  const taken = new Set<string>();
  for (const r of data.records) if (names.has(r.name)) taken.add(`${r.zoneId} ${r.name}`);
  for (const [index, record] of records.entries()) {
    const zone = findZone(data.zones, record.name);
    if (!zone || taken.has(`${zone.id} ${record.name}`)) continue;
    added.push({
      ...record,
      id: `service-${index}`,
      zoneId: zone.id,
      ttl: 300,
      proxied: false,
      comment: null,
      tags: [],
      settings: {},
      createdOn: zone.createdOn,
      modifiedOn: zone.createdOn,
      commentModifiedOn: null,
      tagsModifiedOn: null,
    });
  }
  return added.length === 0 ? data : { ...data, records: [...data.records, ...added] };
}

function bare(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}
