import { promises as dns } from "node:dns";
import { dnsServerProblem } from "../dns/server-address";
import { SpfResolver } from "../dns/spf-dns";
import { countSpfLookups, spfLookupProblem } from "../dns/spf-lookup-count";
import { isSpfRecord } from "../dns/spf-record";
import type { DiagnosisFacts, DnsAnswer, ExpectedRecord, ServerAnswer } from "./diagnosis";

/**
 * What DNS serves for an expected record, for `diagnose`: the zone's authoritative nameservers
 * (its NS, their addresses), each asked directly so a lagging one shows (propagation), and a
 * recursive resolver, which is what the service and receivers see through. Every query is
 * bounded; a server that does not answer is an answer too (`{ error }`), never a hung `up`.
 */

/** Where a query goes: `undefined` is the machine's resolver; else `ip` or `ip:port`. */
export type DnsServerAddress = string | undefined;

/** One query; the package's is node:dns, tests may pass a table. */
export type DnsQuery = (server: DnsServerAddress, name: string, type: string) => Promise<DnsAnswer>;

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
interface Nameserver {
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
            () => nameservers(zoneName, resolverAddress, query, options.nameserverPort ?? 53),
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
  const doubled =
    !brief && zoneName && servers.length > 0
      ? [await ask(servers[0], `${bareName(expected.name)}.${zoneName}`)]
      : undefined;

  const facts: Omit<DiagnosisFacts, "service" | "zone"> & { zoneName?: string } = {
    expected,
    authoritative,
    ...(recursive ? { recursive } : {}),
    ...(doubled ? { doubled } : {}),
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
async function nameservers(
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

/**
 * node:dns, one try per query, `timeoutMs` each: a `Resolver` asking `server` alone, or the
 * machine's servers. TXT strings are joined as resolvers join them; MX answers are their exchanges (the checks ignore priorities).
 */
export function nodeDnsQuery(timeoutMs: number): DnsQuery {
  return async (server, name, type) => {
    const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 1 });
    if (server !== undefined) resolver.setServers([server]);
    try {
      switch (type) {
        case "TXT":
          return { values: (await resolver.resolveTxt(name)).map((strings) => strings.join("")) };
        case "MX":
          return { values: (await resolver.resolveMx(name)).map((mx) => mx.exchange) };
        case "CNAME":
          return { values: await resolver.resolveCname(name) };
        case "NS":
          return { values: await resolver.resolveNs(name) };
        case "A":
          return { values: await resolver.resolve4(name) };
        case "AAAA":
          return { values: await resolver.resolve6(name) };
        default:
          return { error: `cannot ask for ${type}` };
      }
    } catch (error) {
      return readError(error);
    } finally {
      resolver.cancel();
    }
  };
}

/** node:dns errors as answers: NXDOMAIN, no data, or why the server gave none. */
function readError(error: unknown): DnsAnswer {
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case "ENOTFOUND":
      return { nxdomain: true };
    case "ENODATA":
      return { values: [] };
    case "ETIMEOUT":
      return { error: "timed out" };
    case "ESERVFAIL":
      return { error: "SERVFAIL" };
    case "EREFUSED":
      return { error: "REFUSED" };
    default:
      return { error: typeof code === "string" ? code : String(error) };
  }
}

/** A host name as compared: lower case, no final dot. */
export function bareName(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}
