import { dnsServerProblem } from "../dns/server-address";
import { SpfResolver } from "../dns/spf-dns";
import { countSpfLookups, spfLookupProblem } from "../dns/spf-lookup-count";
import { isSpfRecord } from "../dns/spf-record";
import { DnsAnswer, DnsQuery, DnsServerAddress, nodeDnsQuery } from "../dns/dns-query";
import type { DiagnosisFacts, ExpectedRecord, ServerAnswer } from "./diagnosis-facts";

/**
 * What DNS serves for an expected record, for `diagnose`: the zone's authoritative nameservers
 * (its NS, their addresses), each asked directly so a lagging one shows (propagation), and a
 * recursive resolver, which is what the service and receivers see through. Every query is
 * bounded; a server that does not answer is an answer too (`{ error }`), never a hung `up`.
 */

export interface DnsFactsOptions {
  /**
   * Ask these servers (`ip[:port]` each) as the zone's authoritative nameservers instead of finding
   * them: the doctor's `--dns`, `emailDelivery:dnsNameservers`, the emulator's DNS servers. The zone
   * is then found through the first, and no resolver is asked unless `resolver` is given: a stack
   * against the emulator must not ask the machine's resolver about names only the emulator holds.
   * @default none: the zone's nameservers, found through the resolver
   */
  nameservers?: readonly string[];
  /**
   * The recursive resolver (`emailDelivery:dnsResolver`).
   * @default the machine's, unless `nameservers` is given (then none is asked)
   */
  resolver?: string;
  /** How long one query may take. @default 3000 ms (one try) */
  timeoutMs?: number;
  /** The port the zone's nameservers answer on. @default 53 */
  nameserverPort?: number;
  /**
   * Ask the authoritative nameservers only: no resolver, no doubled name, no SPF evaluation (a
   * DNS-first poll's decision needs no more; at 1,000 domains every query counts). @default false
   */
  authoritativeOnly?: boolean;
  /** Injected for tests. @default node:dns through `nodeDnsQuery` */
  query?: DnsQuery;
}

/** @internal */
export const DEFAULT_DNS_TIMEOUT_MS = 3000;

/**
 * A name no one publishes, asked beside the doubled name: a wildcard record of the zone answers
 * there as at the doubled name, which then holds no record of its own.
 */
export const WILDCARD_PROBE = "_email-delivery-wildcard-probe";

/**
 * The zone a name is in: the closest name, itself or above, that has NS records; undefined when
 * none has, or the server stops answering.
 */
export async function findZone(
  name: string,
  ask: (name: string) => Promise<DnsAnswer>,
): Promise<string | undefined> {
  const labels = name.toLowerCase().replace(/\.$/, "").split(".");
  for (let start = 0; start < labels.length - 1; start++) {
    const candidate = labels.slice(start).join(".");
    const answer = await ask(candidate);
    // A server that does not answer will not answer for the names above either.
    if ("error" in answer) return undefined;
    if ("values" in answer && answer.values.length > 0) return candidate;
  }
  return undefined;
}

/** A nameserver to ask: how people read it, and where the query goes. */
export interface Nameserver {
  label: string;
  address: DnsServerAddress;
}

/**
 * The zones and nameservers found, kept across gathers (a DNS-first wait gathers on every poll):
 * the zone of each name and the nameservers of each zone are looked up once. Only complete
 * answers are kept: a zone not found, or a nameserver whose address lookup failed, is looked up
 * again on the next gather.
 */
export interface DiscoveryCache {
  zones: Map<string, Promise<string | undefined>>;
  nameservers: Map<string, Promise<{ servers: Nameserver[]; complete: boolean }>>;
}

/** An empty `DiscoveryCache`; `checkDiagnoser` keeps one for its life. */
export function discoveryCache(): DiscoveryCache {
  return { zones: new Map(), nameservers: new Map() };
}

/** `make()`, shared by callers of the same key while pending, kept only when `keep` says so. */
function remember<T>(
  map: Map<string, Promise<T>> | undefined,
  key: string,
  make: () => Promise<T>,
  keep: (value: T) => boolean,
): Promise<T> {
  const known = map?.get(key);
  if (known) return known;
  const made = make();
  if (map) {
    map.set(key, made);
    made.then(
      (value) => void (keep(value) || map.delete(key)),
      () => void map.delete(key),
    );
  }
  return made;
}

/**
 * The facts DNS gives about `expected`, all but the service's (which the caller adds): each
 * authoritative nameserver's answer, the resolver's, the answers at the doubled name, and for SPF
 * what receivers make of the record served. With `cache`, the zone and its nameservers found by
 * an earlier gather are reused.
 */
export async function gatherDnsFacts(
  expected: ExpectedRecord,
  options: DnsFactsOptions = {},
  cache?: DiscoveryCache,
): Promise<Omit<DiagnosisFacts, "service" | "zone"> & { zoneName?: string }> {
  const given = options.nameservers;
  if (given !== undefined) {
    if (given.length === 0) throw new Error("The DNS servers to ask: none given.");
    for (const server of given) {
      const problem = dnsServerProblem(server);
      if (problem) throw new Error(`The DNS server to ask ${problem}.`);
    }
  }
  const query = options.query ?? nodeDnsQuery(options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS);
  const resolverAddress = given !== undefined ? (options.resolver ?? given[0]) : options.resolver;
  const type = expected.type.toUpperCase();
  const zoneName = await remember(
    cache?.zones,
    bareName(expected.name),
    () => findZone(expected.name, (name) => query(given?.[0] ?? resolverAddress, name, "NS")),
    (zone) => zone !== undefined,
  );

  let servers: Nameserver[];
  if (given !== undefined) servers = given.map((server) => ({ label: server, address: server }));
  else
    servers = zoneName
      ? (
          await remember(
            cache?.nameservers,
            zoneName,
            () => zoneNameservers(zoneName, resolverAddress, query, options.nameserverPort ?? 53),
            (found) => found.complete,
          )
        ).servers
      : [];

  const ask = async (server: Nameserver, name: string) => ({
    server: server.label,
    answer: await query(server.address, name, type),
  });
  const authoritative = await Promise.all(servers.map((server) => ask(server, expected.name)));
  const brief = options.authoritativeOnly === true;
  const recursive: ServerAnswer | undefined =
    !brief && (given === undefined || options.resolver !== undefined)
      ? await ask(
          { label: options.resolver ?? "this machine's resolver", address: options.resolver },
          expected.name,
        )
      : undefined;
  const full = !brief && zoneName && servers.length > 0;
  const doubled = full ? [await ask(servers[0], `${bareName(expected.name)}.${zoneName}`)] : undefined;
  const wildcard = full ? [await ask(servers[0], `${WILDCARD_PROBE}.${zoneName}`)] : undefined;
  // A name that is a CNAME answers a TXT or MX question with the CNAME alone (to a target outside
  // the zone): "no records" would hide it.
  const first = authoritative[0]?.answer;
  const alias =
    !brief &&
    first &&
    "values" in first &&
    first.values.length === 0 &&
    expected.type.toUpperCase() !== "CNAME"
      ? await query(servers[0].address, expected.name, "CNAME")
      : undefined;
  const cname =
    alias && "values" in alias && alias.values.length > 0
      ? { server: servers[0].label, target: bareName(alias.values[0]) }
      : undefined;

  const facts: Omit<DiagnosisFacts, "service" | "zone"> & { zoneName?: string } = {
    expected,
    authoritative,
    ...(recursive ? { recursive } : {}),
    ...(doubled ? { doubled } : {}),
    ...(wildcard ? { wildcard } : {}),
    ...(cname ? { cname } : {}),
    ...(zoneName ? { zoneName } : {}),
  };
  const spfText = expected.purpose === "spf" && !brief ? servedSpf(authoritative, recursive) : undefined;
  if (spfText !== undefined) {
    const count = await countSpfLookups(spfText, spfResolver(query, resolverAddress), {
      domain: expected.name,
    });
    facts.spf = { total: count.total, limit: count.limit, problem: spfLookupProblem(count) };
  }
  return facts;
}

/**
 * The zone's nameservers, each by its first address (IPv4), with the port they answer on;
 * `complete` when the NS lookup and every address lookup answered.
 */
export async function zoneNameservers(
  zone: string,
  resolver: DnsServerAddress,
  query: DnsQuery,
  port: number,
): Promise<{ servers: Nameserver[]; complete: boolean }> {
  const ns = await query(resolver, zone, "NS");
  const names = "values" in ns ? ns.values : [];
  const found = await Promise.all(
    names.map(async (name) => {
      const addresses = await query(resolver, name, "A");
      const address = "values" in addresses ? addresses.values[0] : undefined;
      return address
        ? { label: `${name} (${address})`, address: port === 53 ? address : `${address}:${port}` }
        : undefined;
    }),
  );
  const servers = found.filter((server) => server !== undefined);
  return { servers, complete: names.length > 0 && servers.length === names.length };
}

/** The one SPF record the servers agree on (the first served), if any. */
function servedSpf(authoritative: ServerAnswer[], recursive: ServerAnswer | undefined): string | undefined {
  for (const { answer } of [...authoritative, ...(recursive ? [recursive] : [])])
    if ("values" in answer) {
      const records = answer.values.filter(isSpfRecord);
      if (records.length === 1) return records[0];
    }
  return undefined;
}

/** SPF evaluation's queries through the same bounded query. */
function spfResolver(query: DnsQuery, server: DnsServerAddress): SpfResolver {
  const records = async (name: string, type: string): Promise<string[]> => {
    const answer = await query(server, name, type);
    if ("nxdomain" in answer) throw Object.assign(new Error("NXDOMAIN"), { code: "ENOTFOUND" });
    if ("error" in answer)
      throw Object.assign(new Error(answer.error), {
        code: answer.error.startsWith("timed out") ? "ETIMEOUT" : "ESERVFAIL",
      });
    return answer.values;
  };
  return {
    txt: async (name) => (await records(name, "TXT")).map((text) => [text]),
    a: (name) => records(name, "A"),
    aaaa: (name) => records(name, "AAAA"),
    // Priorities do not change what a lookup costs.
    mx: async (name) => (await records(name, "MX")).map((exchange) => ({ priority: 0, exchange })),
  };
}

/** A host name as compared: lower case, no final dot. */
export function bareName(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}
