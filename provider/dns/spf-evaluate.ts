/**
 * SPF evaluation as receivers run it (RFC 7208 §4), for the message that costs the most: one whose
 * client address no mechanism lists. It goes through every term up to `all` (or to the end and the
 * redirect) and through every include, so it meets every limit and error any message can meet; a
 * record's `-all` is written for it, and the service's mail is such a message until the service's
 * include. A term matches only when it matches every client of the address family: `all`;
 * `ip4`/`ip6`, `a`, `mx` with a prefix length of 0; `exists` of a name with an address; `include`
 * of a record that passes. Names that depend on the message (spf-macro.ts) and `ptr` (the client's
 * reverse DNS) are not looked up: they count their lookup and are reported as unknown; an `exists`
 * on such a name finds no address for a client it does not list: a void lookup (RFC 7208 erratum
 * 6595). Void lookups are counted by term (§4.6.4). A DNS failure leaves its term unresolved and
 * evaluation goes on, as if what it leads to did not pass every client.
 */
import { CachedSpfResolver } from "./spf-dns";
import {
  SPF_LOOKUP_LIMIT,
  SPF_MX_NAME_LIMIT,
  SPF_VOID_LOOKUP_LIMIT,
  SpfError,
  SpfEvaluation,
  SpfFamily,
  SpfLookupNode,
  SpfUnresolved,
} from "./spf-evaluation-types";
import { expandMacros } from "./spf-macro";
import { isSpfRecord, sameDomain } from "./spf-record";
import { readSpfTerms, StrictMechanism, StrictModifier } from "./spf-syntax";

type Outcome = "match" | "no-match" | "stop";
/** A record's result: a qualifier, `none` (nothing matched, no redirect: neutral, §4.7), or not known. */
type Result = "+" | "-" | "~" | "?" | "none" | "unknown" | "stop";

interface State extends SpfEvaluation {
  resolver: CachedSpfResolver;
  domain?: string;
}

/** Where a record is evaluated: its domain (`%{d}`), the terms that led there, the domains on the way. */
interface Place {
  domain: string | undefined;
  via: string[];
  path: string[];
}

/**
 * Evaluates `record`, published at `domain` (the sender's domain, `%{o}`, and the first `%{d}`),
 * for a client of `family` that no mechanism lists, through `resolver`. Evaluation stops at the
 * first permerror (`error`); past the lookup limit it counts the remaining terms without
 * following them, so the user sees what each costs. A DNS failure (temperror) or a name that
 * depends on the message leaves that term unresolved and evaluation goes on.
 */
export async function evaluateSpf(
  record: string,
  resolver: CachedSpfResolver,
  options: { domain?: string; family: SpfFamily },
): Promise<SpfEvaluation> {
  const state: State = {
    family: options.family,
    resolver,
    domain: options.domain,
    lookups: 0,
    voids: [],
    voidQueries: 0,
    unfollowed: 0,
    unresolved: [],
    pyspf: { countedRedirects: [], ignoredRedirects: [] },
    terms: [],
  };
  const path = options.domain ? [options.domain] : [];
  await evaluateRecord(record, { domain: options.domain, via: [], path }, state, state.terms);
  const { resolver: _resolver, domain: _domain, ...evaluation } = state;
  return evaluation;
}

async function evaluateRecord(
  text: string,
  place: Place,
  state: State,
  nodes: SpfLookupNode[],
): Promise<Result> {
  const { domain, via } = place;
  const read = readSpfTerms(text);
  if ("error" in read) return fail(state, { kind: "syntax", ...read.error, via });
  const mechanisms = read.terms.filter((term): term is StrictMechanism => term.kind === "mechanism");
  const redirect = read.terms.find(
    (term): term is StrictModifier => term.kind === "modifier" && term.name === "redirect",
  );
  // pyspf refuses an include of the record's own domain while reading it (a loop, §4.6.4).
  for (const term of mechanisms) {
    const target = term.name === "include" ? expand(term.domainSpec, domain, state) : undefined;
    if (domain && target && "name" in target && sameDomain(target.name, domain))
      return fail(state, { kind: "loop", term: term.text, via, rule: loopRule(domain, "§5.2") });
  }
  if (redirect && redirect.writtenName !== "redirect") state.pyspf.ignoredRedirects.push(redirect.text);
  if (redirect && mechanisms.some((term) => term.name === "all"))
    state.pyspf.countedRedirects.push(redirect.text);
  for (const term of mechanisms) {
    const outcome = await evaluateMechanism(term, place, state, nodes);
    if (outcome === "stop") return "stop";
    if (outcome === "match") return term.qualifier;
  }
  // Reached only without `all` (it always matches): a redirect is followed now (§6.1).
  return redirect ? follow(redirect, redirect.value, place, state, nodes) : "none";
}

async function evaluateMechanism(
  term: StrictMechanism,
  place: Place,
  state: State,
  nodes: SpfLookupNode[],
): Promise<Outcome> {
  const { domain, via } = place;
  const everyClient = (cidr: number | undefined) => cidr === 0;
  switch (term.name) {
    case "all":
      return "match";
    case "ip4":
      return state.family === "ipv4" && everyClient(term.cidr4) ? "match" : "no-match";
    case "ip6":
      return state.family === "ipv6" && everyClient(term.cidr6) ? "match" : "no-match";
    case "include": {
      const result = await follow(term, term.domainSpec!, place, state, nodes);
      return result === "stop" ? "stop" : result === "+" ? "match" : "no-match";
    }
  }
  const node: SpfLookupNode = { term: term.text, lookups: 1 };
  nodes.push(node);
  if (!countLookup(term.text, via, state)) return state.error?.kind === "lookup-limit" ? "no-match" : "stop";
  const target = expand(term.domainSpec, domain, state);
  if (term.name === "ptr" || "unknown" in target) {
    const exists = term.name === "exists";
    node.unresolved =
      "unknown" in target
        ? `its name depends on the message (${target.unknown.join(", ")})`
        : "its names are the client's reverse DNS, different for each message";
    // For a client it does not list, an exists finds no address: a void lookup.
    if (exists) return countVoid(term.text, via, 1, state) ? "no-match" : "stop";
    state.unresolved.push(unresolved(term.text, via, node.unresolved, { mayBeVoid: true }));
    return "no-match";
  }
  const address = state.family === "ipv4" ? "a" : "aaaa";
  const cidr = state.family === "ipv4" ? term.cidr4 : term.cidr6;
  const answer = await state.resolver.query(
    term.name === "mx" ? "mx" : term.name === "exists" ? "a" : address,
    target.name,
  );
  if ("failure" in answer) {
    node.unresolved = `${answer.failure} for ${target.name}`;
    state.unresolved.push(unresolved(term.text, via, node.unresolved, { temperror: true }));
    return "no-match";
  }
  if ("void" in answer) return countVoid(term.text, via, 1, state) ? "no-match" : "stop";
  if (term.name === "exists") return "match";
  if (term.name === "a") return everyClient(cidr) ? "match" : "no-match";
  const exchanges = (answer.records as { exchange: string; priority: number }[])
    .sort((x, y) => x.priority - y.priority)
    .map((record) => record.exchange)
    .filter((exchange) => exchange !== "" && exchange !== ".");
  if (answer.records.length > SPF_MX_NAME_LIMIT) {
    const rule = `leads to ${answer.records.length} MX names at ${target.name}: more than ${SPF_MX_NAME_LIMIT} is permerror (RFC 7208 §4.6.4)`;
    return fail(state, { kind: "mx-limit", term: term.text, via, rule });
  }
  let found = false;
  let voids = 0;
  for (const exchange of exchanges) {
    const addresses = await state.resolver.query(address, exchange);
    if ("failure" in addresses)
      state.unresolved.push(
        unresolved(term.text, via, `${addresses.failure} for ${exchange}`, { temperror: true }),
      );
    else if ("void" in addresses) voids++;
    else found = true;
  }
  if (voids > 0 && !countVoid(term.text, via, voids, state)) return "stop";
  return found && everyClient(cidr) ? "match" : "no-match";
}

/** An include or a redirect: the target's one SPF record, evaluated with the target as `%{d}`. */
async function follow(
  term: StrictMechanism | StrictModifier,
  spec: string,
  { domain, via, path }: Place,
  state: State,
  nodes: SpfLookupNode[],
): Promise<Result> {
  const node: SpfLookupNode = { term: term.text, lookups: 1 };
  nodes.push(node);
  if (!countLookup(term.text, via, state)) {
    if (state.error?.kind !== "lookup-limit") return "stop";
    state.unfollowed += 1;
    return "unknown";
  }
  const isInclude = term.kind === "mechanism";
  const section = isInclude ? "§5.2" : "§6.1";
  const target = expand(spec, domain, state);
  if ("unknown" in target) {
    node.unresolved = `its domain depends on the message (${target.unknown.join(", ")})`;
    state.unresolved.push(
      unresolved(term.text, via, node.unresolved, { mayBeVoid: true, notFollowed: true }),
    );
    return "unknown";
  }
  const name = target.name;
  node.domain = name;
  if (path.some((other) => sameDomain(other, name)))
    return fail(state, { kind: "loop", term: term.text, via, rule: loopRule(name, section) });
  const answer = await state.resolver.query("txt", name);
  if ("failure" in answer) {
    node.unresolved = `${answer.failure} for ${name}`;
    state.unresolved.push(
      unresolved(term.text, via, node.unresolved, { temperror: true, notFollowed: true }),
    );
    return "unknown";
  }
  if ("void" in answer && !countVoid(term.text, via, 1, state)) return "stop";
  const records =
    "records" in answer ? answer.records.map((strings) => strings.join("")).filter(isSpfRecord) : [];
  if (records.length !== 1) {
    const found =
      "void" in answer
        ? answer.void
        : `${answer.records.length} TXT record${answer.records.length > 1 ? "s" : ""}, none SPF`;
    if (records.length > 1)
      return fail(state, {
        kind: "multiple-records",
        term: term.text,
        via,
        rule: `leads to ${name}, which has ${records.length} SPF records: a name may have one, more is permerror (RFC 7208 §4.5)`,
      });
    const what = isInclude ? "an include of a domain without one" : "a redirect to a domain without one";
    return fail(state, {
      kind: isInclude ? "include-none" : "redirect-none",
      term: term.text,
      via,
      rule: `leads to ${name}, which has no SPF record (${found}): ${what} is permerror (RFC 7208 ${section})`,
    });
  }
  node.children = [];
  const inner = { domain: name, via: [...via, term.text], path: [...path, name] };
  const result = await evaluateRecord(records[0], inner, state, node.children);
  node.lookups += node.children.reduce((sum, child) => sum + child.lookups, 0);
  return result;
}

function expand(spec: string | undefined, domain: string | undefined, state: State) {
  if (spec === undefined)
    return domain === undefined ? { unknown: ["the record's own domain, not given"] } : { name: domain };
  return expandMacros(spec, { d: domain, o: state.domain, v: state.family === "ipv4" ? "in-addr" : "ip6" });
}

/** Counts one DNS-querying term; false once past the limit (RFC 7208 §4.6.4), or after an error. */
function countLookup(term: string, via: string[], state: State): boolean {
  state.lookups += 1;
  if (state.lookups <= SPF_LOOKUP_LIMIT) return true;
  if (!state.error) {
    const rule = `is DNS lookup ${state.lookups}: more than ${SPF_LOOKUP_LIMIT} is permerror (RFC 7208 §4.6.4)`;
    state.error = { kind: "lookup-limit", term, via, rule };
  }
  return false;
}

/** Counts a term whose lookup found nothing; false past the void limit (RFC 7208 §4.6.4). */
function countVoid(term: string, via: string[], queries: number, state: State): boolean {
  state.voids.push(term);
  state.voidQueries += queries;
  if (state.voids.length <= SPF_VOID_LOOKUP_LIMIT) return true;
  const earlier = state.voids.slice(0, -1).join(", ");
  const rule =
    `is the third lookup to find nothing (after ${earlier}): more than ` +
    `${SPF_VOID_LOOKUP_LIMIT} such lookups is permerror (RFC 7208 §4.6.4)`;
  fail(state, { kind: "void-limit", term, via, rule });
  return false;
}

function fail(state: State, error: SpfError): "stop" {
  state.error ??= error;
  return "stop";
}

function loopRule(name: string, section: string): string {
  return (
    `leads back to ${name}, whose record is being evaluated: receivers follow the loop until the ` +
    `${SPF_LOOKUP_LIMIT}-lookup limit, permerror (RFC 7208 §4.6.4, ${section})`
  );
}

function unresolved(
  term: string,
  via: string[],
  reason: string,
  flags: Partial<Pick<SpfUnresolved, "temperror" | "mayBeVoid" | "notFollowed">>,
): SpfUnresolved {
  return { term, via, reason, temperror: false, mayBeVoid: false, notFollowed: false, ...flags };
}
