import { promises as dns } from "node:dns";

/**
 * One DNS question to one server, and its answer as the package reads it: what the verification's
 * diagnosis, the doctor and the receivers' judgement ask, through node:dns or a test's table.
 */

/**
 * One server's answer for the expected name and type: the values (TXT joined, MX exchanges, CNAME
 * targets), or NXDOMAIN, or an error (a timeout, SERVFAIL, REFUSED). `values: []` is NOERROR with
 * no data.
 */
export type DnsAnswer = { values: string[] } | { nxdomain: true } | { error: string };

/** Where a query goes: `undefined` is the machine's resolver; else `ip` or `ip:port`. */
export type DnsServerAddress = string | undefined;

/** One query; the package's is node:dns, tests may pass a table. */
export type DnsQuery = (server: DnsServerAddress, name: string, type: string) => Promise<DnsAnswer>;

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
