/**
 * RFC 7208's `check_host()`: what a receiver decides for one message, from its client's address,
 * its sender and the DNS as served. The package's other SPF reader (`dns/spf-evaluate.ts`) walks
 * a record for the message that costs the most, to count lookups before anything is published;
 * this one decides for a known client, as receivers do once mail arrives, and stops where they
 * stop: at the first mechanism that matches.
 */
import { isIPv4, isIPv6 } from "node:net";
import { CachedSpfResolver, SpfAnswer } from "../dns/spf-dns";
import { SPF_LOOKUP_LIMIT, SPF_MX_NAME_LIMIT, SPF_VOID_LOOKUP_LIMIT } from "../dns/spf-evaluation-types";
import { expandMacros, MacroValues } from "../dns/spf-macro";
import { isSpfRecord, sameDomain } from "../dns/spf-record";
import { readSpfTerms, StrictMechanism } from "../dns/spf-syntax";
import { inNetwork, macroValues, type SpfIdentity } from "./spf-message";

/** RFC 7208 §2.6's results. */
export type SpfResult = "pass" | "fail" | "softfail" | "neutral" | "none" | "permerror" | "temperror";

/** A result and why: the term that decided, where it was, or the rule a permerror breaks. */
export interface SpfCheck {
  /** What receivers decide (RFC 7208 §2.6). */
  result: SpfResult;
  /** The deciding term as written, if a term decided. */
  term?: string;
  /** The include/redirect terms that led to the record holding `term`. */
  via: string[];
  /** One sentence: why this result, with the RFC section where it is an error. */
  reason: string;
  /** DNS-querying terms evaluated (at most 10 without a permerror). */
  lookups: number;
  /** Lookups that found nothing (NXDOMAIN or no records), counted per query as pyspf counts them. */
  voidLookups: number;
}

interface State {
  identity: SpfIdentity;
  family: "ipv4" | "ipv6";
  resolver: CachedSpfResolver;
  lookups: number;
  voidLookups: number;
}

/** Raised inside the evaluation to end it with a result (permerror or temperror). */
class Ended extends Error {
  constructor(readonly check: Outcome) {
    super(check.reason);
  }
}

/**
 * `check_host(ip, domain, sender)` (RFC 7208 §4) through `resolver`. Every term's lookups count
 * toward the limit of 10 and void lookups toward 2 (§4.6.4); a DNS failure is temperror (§4.4),
 * never a pass. `ptr` is not looked up (its names are the client's reverse DNS; §5.5 says not to
 * use it): it matches nothing here, which a receiver that follows it may see otherwise.
 */
export async function checkHost(given: SpfIdentity, resolver: CachedSpfResolver): Promise<SpfCheck> {
  // An IPv4-mapped IPv6 address is an IPv4 client (RFC 7208 §5: `::ffff:192.0.2.1`).
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(given.ip);
  const identity = mapped ? { ...given, ip: mapped[1] } : given;
  const family = isIPv4(identity.ip) ? "ipv4" : isIPv6(identity.ip) ? "ipv6" : undefined;
  if (!family) throw new Error(`checkHost: ${JSON.stringify(given.ip)} is not an IP address`);
  const state: State = { identity, family, resolver, lookups: 0, voidLookups: 0 };
  let outcome: Outcome;
  try {
    outcome = await evaluate(identity.domain, [], state);
  } catch (error) {
    if (!(error instanceof Ended)) throw error;
    outcome = error.check;
  }
  return { ...outcome, lookups: state.lookups, voidLookups: state.voidLookups };
}

type Outcome = Omit<SpfCheck, "lookups" | "voidLookups">;

/** The result of the one SPF record at `domain` (§4.3-4.7). */
async function evaluate(domain: string, via: string[], state: State): Promise<Outcome> {
  const record = await recordAt(domain, via, state);
  if ("none" in record) return { result: "none", via, reason: record.none };
  const read = readSpfTerms(record.text);
  if ("error" in read)
    throw new Ended({
      result: "permerror",
      term: read.error.term,
      via,
      reason: `"${read.error.term}" ${read.error.rule}`,
    });
  const values = macroValues(domain, state.identity, state.family);
  const mechanisms = read.terms.filter((term): term is StrictMechanism => term.kind === "mechanism");
  for (const term of mechanisms) {
    const matched = await matches(term, domain, values, via, state);
    if (matched) return qualified(term, via);
  }
  const redirect = read.terms.find((term) => term.kind === "modifier" && term.name === "redirect");
  if (redirect && redirect.kind === "modifier") {
    count(redirect.text, via, state);
    const target = expandedName(redirect.value, values, redirect.text, via);
    const result = await evaluate(target, [...via, redirect.text], state);
    if (result.result === "none")
      throw new Ended({
        result: "permerror",
        term: redirect.text,
        via,
        reason: `"${redirect.text}" leads to ${target}, which has no SPF record: permerror (RFC 7208 §6.1)`,
      });
    return result;
  }
  return {
    result: "neutral",
    via,
    reason: `no mechanism of the record at ${domain} matches ${state.identity.ip}, and it has no redirect: neutral (RFC 7208 §4.7)`,
  };
}

/** The one SPF record at `domain`, or why there is none; two or more end in permerror (§4.5). */
async function recordAt(
  domain: string,
  via: string[],
  state: State,
): Promise<{ text: string } | { none: string }> {
  const answer = await state.resolver.query("txt", domain);
  if ("failure" in answer)
    throw new Ended({
      result: "temperror",
      via,
      reason: `the TXT lookup of ${domain} failed (${answer.failure}): temperror (RFC 7208 §4.4)`,
    });
  if ("void" in answer) {
    // The first lookup is not a term's: only lookups of terms count as void (§4.6.4).
    if (via.length > 0) countVoid(via[via.length - 1], via.slice(0, -1), state);
    return { none: `${domain} has no SPF record (${answer.void}): none (RFC 7208 §4.5)` };
  }
  const records = answer.records.map((strings) => strings.join("")).filter(isSpfRecord);
  if (records.length > 1)
    throw new Ended({
      result: "permerror",
      via,
      reason: `${domain} has ${records.length} SPF records: a name may have one, more is permerror (RFC 7208 §4.5)`,
    });
  if (records.length === 0)
    return { none: `${domain} has TXT records but none is an SPF record: none (RFC 7208 §4.5)` };
  return { text: records[0] };
}

/** Whether `term` matches the client (§5). Includes recurse; limits end the evaluation. */
async function matches(
  term: StrictMechanism,
  domain: string,
  values: MacroValues,
  via: string[],
  state: State,
): Promise<boolean> {
  const { family, identity } = state;
  switch (term.name) {
    case "all":
      return true;
    case "ip4":
    case "ip6": {
      if ((term.name === "ip4") !== (family === "ipv4")) return false;
      const network = term.text.slice(term.text.indexOf(":") + 1).split("/")[0];
      const length = family === "ipv4" ? (term.cidr4 ?? 32) : (term.cidr6 ?? 128);
      return inNetwork(identity.ip, network, length, family);
    }
    case "include": {
      count(term.text, via, state);
      const target = expandedName(term.domainSpec!, values, term.text, via);
      // Receivers following it would loop until the lookup limit; pyspf refuses it at once.
      if (sameDomain(target, domain))
        throw new Ended({
          result: "permerror",
          term: term.text,
          via,
          reason: `"${term.text}" includes the record's own domain: a loop, permerror (RFC 7208 §4.6.4, §5.2)`,
        });
      const inner = await evaluate(target, [...via, term.text], state);
      switch (inner.result) {
        case "pass":
          return true;
        case "temperror":
          throw new Ended(inner);
        case "permerror":
          throw new Ended(inner);
        case "none":
          throw new Ended({
            result: "permerror",
            term: term.text,
            via,
            reason: `"${term.text}" leads to ${target}, which has no SPF record: permerror (RFC 7208 §5.2)`,
          });
        default:
          return false;
      }
    }
    case "ptr":
      count(term.text, via, state);
      return false;
    case "exists": {
      count(term.text, via, state);
      const target = expandedName(term.domainSpec!, values, term.text, via);
      const answer = await state.resolver.query("a", target);
      return found(answer, term.text, via, state, target).length > 0;
    }
    case "a":
    case "mx": {
      count(term.text, via, state);
      const target = term.domainSpec ? expandedName(term.domainSpec, values, term.text, via) : domain;
      const length = family === "ipv4" ? (term.cidr4 ?? 32) : (term.cidr6 ?? 128);
      const addressType = family === "ipv4" ? "a" : "aaaa";
      let hosts = [target];
      if (term.name === "mx") {
        const exchanges = found(await state.resolver.query("mx", target), term.text, via, state, target);
        if (exchanges.length > SPF_MX_NAME_LIMIT)
          throw new Ended({
            result: "permerror",
            term: term.text,
            via,
            reason: `"${term.text}" leads to ${exchanges.length} MX names at ${target}: more than ${SPF_MX_NAME_LIMIT} is permerror (RFC 7208 §4.6.4)`,
          });
        hosts = exchanges.map((mx) => mx.exchange).filter((host) => host !== "" && host !== ".");
      }
      for (const host of hosts) {
        const addresses = found(await state.resolver.query(addressType, host), term.text, via, state, host);
        if (addresses.some((address) => inNetwork(identity.ip, address, length, family))) return true;
      }
      return false;
    }
  }
}

/** A lookup's records; a void answer counts (§4.6.4), a failure is temperror (§4.4, §5). */
function found<T>(answer: SpfAnswer<T>, term: string, via: string[], state: State, name: string): T[] {
  if ("failure" in answer)
    throw new Ended({
      result: "temperror",
      term,
      via,
      reason: `"${term}": the lookup of ${name} failed (${answer.failure}): temperror (RFC 7208 §5)`,
    });
  if ("void" in answer) {
    countVoid(term, via, state);
    return [];
  }
  return answer.records;
}

function count(term: string, via: string[], state: State): void {
  state.lookups += 1;
  if (state.lookups > SPF_LOOKUP_LIMIT)
    throw new Ended({
      result: "permerror",
      term,
      via,
      reason: `"${term}" is DNS lookup ${state.lookups}: more than ${SPF_LOOKUP_LIMIT} is permerror (RFC 7208 §4.6.4)`,
    });
}

function countVoid(term: string, via: string[], state: State): void {
  state.voidLookups += 1;
  if (state.voidLookups > SPF_VOID_LOOKUP_LIMIT)
    throw new Ended({
      result: "permerror",
      term,
      via,
      reason: `"${term}" is lookup ${state.voidLookups} to find nothing: more than ${SPF_VOID_LOOKUP_LIMIT} is permerror (RFC 7208 §4.6.4)`,
    });
}

const QUALIFIED: Record<StrictMechanism["qualifier"], SpfResult> = {
  "+": "pass",
  "-": "fail",
  "~": "softfail",
  "?": "neutral",
};

function qualified(term: StrictMechanism, via: string[]): Outcome {
  const result = QUALIFIED[term.qualifier];
  return { result, term: term.text, via, reason: `"${term.text}" matches: ${result} (RFC 7208 §4.6.2)` };
}

/** A domain-spec expanded with everything one message fixes (§7); an expansion that fails is permerror. */
function expandedName(spec: string, values: MacroValues, term: string, via: string[]): string {
  const expanded = expandMacros(spec, values);
  if ("unknown" in expanded)
    throw new Ended({
      result: "permerror",
      term,
      via,
      reason: `"${term}" uses ${expanded.unknown.join(", ")}, which cannot be expanded (RFC 7208 §7)`,
    });
  return expanded.name;
}
