/**
 * RFC 7208's limit of 10 DNS-querying terms per evaluation (§4.6.4), counted through DNS: the
 * includes and redirects a record leads to are resolved and counted too, so a merge that would
 * take a user's record over the limit is found before it is written.
 */
import {
  isAll,
  isSpfRecord,
  parseOrThrow,
  sameDomain,
  SpfMechanism,
  SpfMechanismName,
  SpfModifier,
} from "./spf-record";

/** Receivers return permerror past this many DNS-querying terms in one evaluation (RFC 7208 §4.6.4). */
export const SPF_LOOKUP_LIMIT = 10;

/**
 * The terms of one record that cost a DNS lookup when evaluated (RFC 7208 §4.6.4: `include`, `a`,
 * `mx`, `ptr`, `exists` and `redirect`; `all`, `ip4`, `ip6` and `exp` do not), in order, as far as
 * evaluation can reach: mechanisms after the first `all` are never evaluated (§5.1), and
 * `redirect` is ignored when the record has an `all` (§6.1).
 */
export function spfLookupTerms(text: string): (SpfMechanism | SpfModifier)[] {
  const { terms } = parseOrThrow(text, "spfLookupTerms");
  const firstAll = terms.findIndex(isAll);
  const reached = firstAll >= 0 ? terms.slice(0, firstAll) : terms;
  return reached.filter(
    (term): term is SpfMechanism | SpfModifier =>
      (term.kind === "mechanism" && LOOKUP_MECHANISMS.includes(term.name)) ||
      (term.kind === "modifier" && term.name === "redirect" && firstAll < 0),
  );
}

const LOOKUP_MECHANISMS: readonly SpfMechanismName[] = ["include", "a", "mx", "ptr", "exists"];

/** node:dns `resolveTxt`'s shape: each record as its character-strings. */
export type ResolveTxt = (name: string) => Promise<string[][]>;

/** One DNS-querying term and what it costs, with the terms it leads to (`include:`, `redirect=`). */
export interface SpfLookupNode {
  /** The term as written. */
  term: string;
  /** The name an `include`/`redirect` leads to. */
  domain?: string;
  /** Lookups of this term and everything under it. */
  lookups: number;
  /** The terms of the record it leads to, when that was resolved. */
  children?: SpfLookupNode[];
  /** Why the record it leads to was not counted (then `lookups` counts the term alone). */
  unresolved?: string;
}

export interface SpfLookupCount {
  /** DNS-querying terms evaluation can reach. A lower bound when `unresolved` is not empty. */
  total: number;
  /** `SPF_LOOKUP_LIMIT`. */
  limit: number;
  /** Targets whose records were not counted: unresolvable, macros, loops, or past the limit. */
  unresolved: { domain: string; term: string; reason: string }[];
  /** The record's DNS-querying terms, each with its cost. */
  terms: SpfLookupNode[];
}

interface CountState {
  resolveTxt: ResolveTxt;
  total: number;
  unresolved: SpfLookupCount["unresolved"];
  cache: Map<string, Promise<string[] | { reason: string }>>;
}

/**
 * Counts the DNS lookups a receiver makes evaluating `text` when nothing matches (the worst case):
 * its DNS-querying terms plus those of every record reached through `include:` and `redirect=`,
 * each resolved with `resolveTxt`, counted as often as evaluation reaches it. Past 10, receivers
 * stop with permerror (RFC 7208 §4.6.4), and so does this count: no target is looked up once the
 * total has passed the limit, so at most 10 names are resolved, each once.
 *
 * A target that is not followed counts its own lookup and is listed in `unresolved`: no SPF record
 * or no such name (permerror, §5.2/§6.1), several SPF records (§4.5), a DNS failure (temperror), a
 * macro (`%{d}`, known only when a message is checked, §7), or a loop back to a record being
 * evaluated (followed until the limit, so permerror). `options.domain`, the name the record is
 * published at, lets a loop back to it be seen.
 */
export async function countSpfLookups(
  text: string,
  resolveTxt: ResolveTxt,
  options: { domain?: string } = {},
): Promise<SpfLookupCount> {
  parseOrThrow(text, "countSpfLookups");
  const state: CountState = { resolveTxt, total: 0, unresolved: [], cache: new Map() };
  const terms = await countTerms(text, options.domain ? [options.domain] : [], state);
  return { total: state.total, limit: SPF_LOOKUP_LIMIT, unresolved: state.unresolved, terms };
}

async function countTerms(text: string, path: string[], state: CountState): Promise<SpfLookupNode[]> {
  const nodes: SpfLookupNode[] = [];
  for (const term of spfLookupTerms(text)) {
    state.total += 1;
    const node: SpfLookupNode = { term: term.text, lookups: 1 };
    nodes.push(node);
    if (term.name !== "include" && term.name !== "redirect") continue;
    const domain = term.value ?? "";
    node.domain = domain;
    const section = term.name === "include" ? "§5.2" : "§6.1";
    const followed = await follow(domain, section, path, state);
    if (typeof followed === "string") {
      node.unresolved = followed;
      state.unresolved.push({ domain, term: term.text, reason: followed });
      continue;
    }
    node.children = await countTerms(followed.record, [...path, domain], state);
    node.lookups += node.children.reduce((sum, child) => sum + child.lookups, 0);
  }
  return nodes;
}

/** The SPF record a target leads to, or why it is not followed. */
async function follow(
  domain: string,
  section: string,
  path: string[],
  state: CountState,
): Promise<{ record: string } | string> {
  if (domain === "") return `no domain given: a syntax error, permerror (RFC 7208 ${section})`;
  if (domain.includes("%")) return "contains a macro, expanded only when a message is checked (RFC 7208 §7)";
  if (path.some((name) => sameDomain(name, domain)))
    return "a loop back to a record being evaluated: receivers follow it until the limit (permerror)";
  if (state.total > SPF_LOOKUP_LIMIT)
    return `not looked up: the count had already passed ${SPF_LOOKUP_LIMIT}`;
  const key = domain.toLowerCase().replace(/\.$/, "");
  let answer = state.cache.get(key);
  if (!answer) {
    answer = Promise.resolve(domain)
      .then((name) => state.resolveTxt(name))
      .then(
        (records) => records.map((strings) => strings.join("")).filter(isSpfRecord),
        (error: unknown) => ({ reason: dnsFailure(error, section) }),
      );
    state.cache.set(key, answer);
  }
  const records = await answer;
  if (!Array.isArray(records)) return records.reason;
  if (records.length === 0) return `no SPF record: permerror (RFC 7208 ${section})`;
  if (records.length > 1) return `${records.length} SPF records: permerror (RFC 7208 §4.5)`;
  return { record: records[0] };
}

/** node:dns error codes in words. */
function dnsFailure(error: unknown, section: string): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  switch (code) {
    case "ENOTFOUND":
      return `no such name (NXDOMAIN): permerror (RFC 7208 ${section})`;
    case "ENODATA":
      return `no SPF record: permerror (RFC 7208 ${section})`;
    case "ETIMEOUT":
      return "DNS timeout: temperror";
    case "ESERVFAIL":
      return "DNS server failure (SERVFAIL): temperror";
    case "EREFUSED":
      return "DNS query refused: temperror";
    default:
      return `DNS lookup failed (${typeof code === "string" ? code : error instanceof Error ? error.message : String(error)}): temperror`;
  }
}

/**
 * Undefined when the count is within the limit; else why receivers will return permerror (RFC
 * 7208 §4.6.4), with what each of the record's terms costs, so the user sees which include to drop.
 */
export function spfLookupProblem(count: SpfLookupCount): string | undefined {
  if (count.total <= count.limit) return undefined;
  const atLeast = count.unresolved.length > 0 ? "at least " : "";
  const costs = count.terms.map((node) => `${node.term} ${node.lookups}`).join(", ");
  return (
    `SPF needs ${atLeast}${count.total} DNS lookups, over the limit of ${count.limit} ` +
    `(RFC 7208 §4.6.4): receivers return permerror, so no mail passes SPF. Lookups by term: ${costs}.`
  );
}

/**
 * Undefined when every `include:`/`redirect=` target was counted; else a warning that the count is
 * a lower bound, naming each target not followed and why.
 */
export function spfUnresolvedWarning(count: SpfLookupCount): string | undefined {
  if (count.unresolved.length === 0) return undefined;
  const targets = count.unresolved.map(({ term, reason }) => `${term} (${reason})`).join("; ");
  return `SPF lookup count ${count.total} is a lower bound: not counted beyond ${targets}.`;
}
