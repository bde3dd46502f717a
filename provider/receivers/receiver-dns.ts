/**
 * DNS as a receiver gets it, for the judgement of a domain's mail: names in the domain's zone from
 * its authoritative nameservers (what receivers will see once caches agree, and what the wait asks
 * about anyway), every other name (the service's include, a user's `_spf.google.com`) from a
 * recursive resolver. An authoritative server answers a CNAME to a name outside its zone with the
 * CNAME alone; a resolver follows it, and so does this view (the return path is such a CNAME).
 */
import type { SpfResolver } from "../dns/spf-dns";
import type { DnsAnswer, DnsQuery, DnsServerAddress } from "../dns/dns-query";

/** Which servers answer a name, the first that answers deciding. */
export type DnsRoute = (name: string) => readonly DnsServerAddress[];

/** What receivers ask: SPF's queries, and a name's CNAME (the return path's, asked as such). */
export interface ReceiverDns extends SpfResolver {
  /** The CNAME targets at `name` (none: it is not an alias); errors as node:dns's. */
  cname(name: string): Promise<string[]>;
}

/** CNAME chains longer than this are a loop or a mistake; resolvers give up too. */
const MAX_CNAME_HOPS = 8;

/**
 * The queries receivers make (TXT, A, AAAA, MX), each through the servers `route` names for it,
 * a CNAME at the name followed. Answers and failures are node:dns's shapes (errors carry `code`),
 * so SPF evaluation reads them as RFC 7208 says.
 */
export function receiverResolver(query: DnsQuery, route: DnsRoute): ReceiverDns {
  // Every server the route names is asked: receivers meet whichever answers them, so servers
  // that answer differently (one still serving a record the others no longer do) leave the
  // judgement open, as a failure does, until they agree. A server that fails is passed over.
  const ask = async (name: string, type: string): Promise<DnsAnswer> => {
    const answers = await Promise.all(route(name).map((server) => query(server, name, type)));
    const answered = answers.filter((answer) => !("error" in answer));
    if (answered.length === 0) return answers[0] ?? { error: "no server to ask" };
    const shown = answered.map(sameness);
    if (shown.some((one) => one !== shown[0]))
      return { error: `the nameservers answer ${name} ${type} differently (${shown.join(" / ")})` };
    return answered[0];
  };
  const values = async (start: string, type: string): Promise<string[]> => {
    let name = start;
    for (let hop = 0; hop <= MAX_CNAME_HOPS; hop++) {
      const answer = await ask(name, type);
      if ("error" in answer) throw failure(answer.error);
      if ("nxdomain" in answer) throw Object.assign(new Error("NXDOMAIN"), { code: "ENOTFOUND" });
      if (answer.values.length > 0) return answer.values;
      const alias = await ask(name, "CNAME");
      if (!("values" in alias) || alias.values.length === 0) return [];
      name = alias.values[0];
    }
    throw failure(`more than ${MAX_CNAME_HOPS} CNAMEs from ${start}`);
  };
  return {
    // TXT strings arrive joined (nodeDnsQuery joins them as resolvers do): one string a record.
    txt: async (name) => (await values(name, "TXT")).map((text) => [text]),
    a: (name) => values(name, "A"),
    aaaa: (name) => values(name, "AAAA"),
    // Exchanges only: a priority decides nothing receivers judge here.
    mx: async (name) => (await values(name, "MX")).map((exchange) => ({ priority: 0, exchange })),
    cname: async (name) => {
      const answer = await ask(name, "CNAME");
      if ("error" in answer) throw failure(answer.error);
      return "values" in answer ? answer.values : [];
    },
  };
}

function failure(reason: string): Error {
  const code = reason.startsWith("timed out")
    ? "ETIMEOUT"
    : reason === "SERVFAIL"
      ? "ESERVFAIL"
      : "ESERVFAIL";
  return Object.assign(new Error(reason), { code });
}

/** An answer compared without order: its values sorted, or NXDOMAIN. */
function sameness(answer: DnsAnswer): string {
  return "nxdomain" in answer
    ? "NXDOMAIN"
    : "values" in answer
      ? JSON.stringify([...answer.values].sort())
      : "";
}
