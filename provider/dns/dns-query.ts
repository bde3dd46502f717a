import { promises as dns } from "node:dns";

/**
 * One DNS question to one server, and its answer as the package reads it: what the verification's
 * diagnosis, the doctor and the receivers' judgement ask, through node:dns or a test's table; and
 * two wrappers for a caller that asks many questions at once (the doctor): a bound on how many are
 * in flight, and each question asked once.
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
 * machine's servers. TXT strings are joined as resolvers join them and read as UTF-8
 * ({@link txtText}); MX answers are their exchanges (the checks ignore priorities).
 */
export function nodeDnsQuery(timeoutMs: number): DnsQuery {
  return async (server, name, type) => {
    const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 1 });
    if (server !== undefined) resolver.setServers([server]);
    try {
      switch (type) {
        case "TXT":
          return { values: (await resolver.resolveTxt(name)).map(txtText) };
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

/**
 * A TXT record's text from the character-strings node:dns gives: joined, then read as UTF-8.
 * Node's c-ares binding makes each character-string a one-byte string, one character per byte,
 * U+0000 to U+00FF (src/cares_wrap.cc, `ParseTxtReply`: `OneByteString(…, txt, length)`): read
 * as such, UTF-8 text is garbled ("cafÃ©") and a C1 control is whatever byte 0x80–0x9F stood
 * alone. `latin1` turns every such character back into its byte, so the bytes served are had
 * exactly; joined first, a character split across two strings reads whole. A byte sequence that is
 * not UTF-8 reads as U+FFFD, as in any UTF-8 reader.
 */
export function txtText(strings: readonly string[]): string {
  return Buffer.from(strings.join(""), "latin1").toString("utf8");
}

/**
 * `query`, with at most `concurrency` questions in flight; the others wait their turn, first come
 * first served. Without it a caller that gathers facts side by side sends every question at once:
 * thousands for a large records file, which a nameserver (or this machine's sockets) may refuse.
 */
export function boundedDnsQuery(query: DnsQuery, concurrency: number): DnsQuery {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (server, name, type) => {
    if (running >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await query(server, name, type);
    } finally {
      // The turn passes straight to the next in line, so `running` never drops and rises again.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * `query`, asking each server each name and type once for the life of the result (names compared
 * without letter case): for a run that is one look at DNS (the doctor), where the diagnosis and
 * receivers' judgement ask many of the same questions. Not for a wait, whose polls must ask again.
 */
export function onceDnsQuery(query: DnsQuery): DnsQuery {
  const asked = new Map<string, Promise<DnsAnswer>>();
  return (server, name, type) => {
    const key = `${server ?? ""} ${name.toLowerCase().replace(/\.$/, "")} ${type}`;
    let answer = asked.get(key);
    if (!answer) asked.set(key, (answer = query(server, name, type)));
    return answer;
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
