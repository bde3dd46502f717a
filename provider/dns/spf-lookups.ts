import { promises as dns } from "node:dns";
import { txtText } from "./dns-query";
import { dnsServerProblem } from "./server-address";
import { SpfResolver } from "./spf-dns";
import { countSpfLookups, SpfLookupCount, spfLookupProblem, spfUnresolvedWarning } from "./spf-lookup-count";

/** How long one lookup may take before it counts as a failure (temperror). */
const LOOKUP_TIMEOUT_MS = 5000;
/**
 * How long one check may spend on lookups in all: past it, the lookups left fail at once
 * (temperror), so a resolver that never answers costs half a minute, not 5 s per name. RFC 7208
 * §4.6.4 asks receivers to allow at least 20 s for one evaluation; a check makes two (IPv4, IPv6).
 */
const CHECK_BUDGET_MS = 30_000;

/** What receivers make of a record, for the providers: see `checkSpfLookups`. */
export interface SpfLookupCheck {
  /** Set exactly when receivers reject the record (permerror): one sentence with the term, rule and fix. */
  problem?: string;
  /** What could not be known (a DNS failure, a term that differs from message to message) or may differ between receivers. */
  warning?: string;
  /** DNS lookups a message no mechanism matches costs (a lower bound when `lowerBound`). */
  total: number;
  /** `ok`, `permerror` (with `problem`) or `temperror` (a lookup failed; with `warning`). */
  verdict: SpfLookupCount["verdict"];
  /** `SPF_LOOKUP_LIMIT`: a record with `total` at it has no room for another include. */
  limit: number;
  lowerBound: boolean;
}

/**
 * An SPF record (unquoted) judged as receivers judge it (RFC 7208; see `countSpfLookups`),
 * resolved through `dnsServer` (an address `dnsServerProblem` accepts), else this machine's DNS
 * resolver: `problem` when receivers return permerror for it
 * (a syntax error anywhere, over 10 lookups, over 2 void lookups, over 10 MX names, an include or
 * redirect to a name without exactly one SPF record, a loop, or any of these in a record it
 * includes), `warning` for what could not be known. A record within the limit may still have no
 * room for one more include: compare `total` with `limit` (`verdict` is `ok` then).
 */
export async function checkSpfLookups(
  record: string,
  domain?: string,
  dnsServer?: string,
): Promise<SpfLookupCheck> {
  const resolver = nodeResolver(Date.now() + CHECK_BUDGET_MS, dnsServer);
  const count = await countSpfLookups(record, resolver, { domain });
  return {
    problem: spfLookupProblem(count),
    warning: spfUnresolvedWarning(count),
    total: count.total,
    verdict: count.verdict,
    limit: count.limit,
    lowerBound: count.lowerBound,
  };
}

/**
 * node:dns (the machine's resolver, or a `Resolver` asking `dnsServer` alone), each query bounded,
 * all of them by `deadline`: a resolver that never answers is a failed lookup, not a hung `up`.
 */
function nodeResolver(deadline: number, dnsServer: string | undefined): SpfResolver {
  const bounded = <T>(query: () => Promise<T>): Promise<T> => {
    const left = Math.min(LOOKUP_TIMEOUT_MS, deadline - Date.now());
    if (left <= 0) return Promise.reject(timedOut());
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(timedOut()), left);
    });
    return Promise.race([query(), timeout]).finally(() => clearTimeout(timer));
  };
  let ask: Pick<typeof dns, "resolveTxt" | "resolve4" | "resolve6" | "resolveMx"> = dns;
  if (dnsServer !== undefined) {
    const problem = dnsServerProblem(dnsServer);
    if (problem) throw new Error(`The DNS server for SPF lookups ${problem}.`);
    const resolver = new dns.Resolver();
    resolver.setServers([dnsServer]);
    ask = resolver;
  }
  return {
    // node:dns gives each byte as a character (latin1): read back as the UTF-8 text served.
    txt: async (name) => (await bounded(() => ask.resolveTxt(name))).map((strings) => [txtText(strings)]),
    a: (name) => bounded(() => ask.resolve4(name)),
    aaaa: (name) => bounded(() => ask.resolve6(name)),
    mx: (name) => bounded(() => ask.resolveMx(name)),
  };
}

const timedOut = () => Object.assign(new Error("no answer"), { code: "ETIMEOUT" });
