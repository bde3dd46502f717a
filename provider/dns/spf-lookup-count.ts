/**
 * An SPF record judged as receivers judge it, before it is written: its syntax (RFC 7208 §4.6,
 * §12), the 10-lookup limit, the void-lookup limit and the MX-name limit (§4.6.4), and the records
 * its includes and redirects lead to (§5.2, §6.1), through an injected resolver. The evaluation
 * itself is spf-evaluate.ts; this module runs it for both address families and words the verdict.
 */
import { CachedSpfResolver, SpfResolver } from "./spf-dns";
import { evaluateSpf } from "./spf-evaluate";
import {
  SPF_LOOKUP_LIMIT,
  SPF_VOID_LOOKUP_LIMIT,
  SpfError,
  SpfEvaluation,
  SpfLookupNode,
  SpfUnresolved,
} from "./spf-evaluation-types";
import { isAll, parseOrThrow, SpfMechanism, SpfMechanismName, SpfModifier } from "./spf-record";

export { SPF_LOOKUP_LIMIT };

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

/** What receivers make of a record, judged for clients of both address families. */
export interface SpfLookupCount {
  /**
   * `permerror`: receivers reject the record (`error` says where and why). `temperror`: a lookup
   * failed, so the verdict is not known yet (see `unresolved`). `ok`: receivers evaluate it.
   */
  verdict: "ok" | "permerror" | "temperror";
  /** The first permerror; `family` is set when only IPv6 clients meet it. */
  error?: SpfError & { family?: "ipv6" };
  /** DNS-querying terms a message no mechanism matches goes through. */
  total: number;
  /** `SPF_LOOKUP_LIMIT`. */
  limit: number;
  /** True when some include or redirect was not followed: `total` is then a lower bound. */
  lowerBound: boolean;
  /** Terms not looked up or not followed: DNS failures, names that depend on the message, `ptr`. */
  unresolved: SpfUnresolved[];
  /** Why the verdict may not hold for every message or every receiver, in sentences. */
  warnings: string[];
  /** The record's DNS-querying terms, each with its cost. */
  terms: SpfLookupNode[];
}

/**
 * Judges `text` (an SPF record published at `options.domain`) the way receivers evaluate it,
 * through `resolver`, once for IPv4 clients and once for IPv6 ones (their `a` and `mx` lookups
 * differ, and so may their void lookups), each name and type asked once. See spf-evaluate.ts for
 * the message it assumes (one no mechanism matches: the most costly) and `SpfLookupCount`.
 */
export async function countSpfLookups(
  text: string,
  resolver: SpfResolver,
  options: { domain?: string } = {},
): Promise<SpfLookupCount> {
  parseOrThrow(text, "countSpfLookups");
  const cached = new CachedSpfResolver(resolver);
  const ipv4 = await evaluateSpf(text, cached, { ...options, family: "ipv4" });
  const ipv6 = await evaluateSpf(text, cached, { ...options, family: "ipv6" });
  const error = ipv4.error ?? (ipv6.error && { ...ipv6.error, family: "ipv6" as const });
  const fuller = ipv6.lookups > ipv4.lookups ? ipv6 : ipv4;
  const unresolved = [...ipv4.unresolved];
  for (const entry of ipv6.unresolved)
    if (!unresolved.some((other) => other.term === entry.term && other.reason === entry.reason))
      unresolved.push(entry);
  return {
    verdict: error ? "permerror" : unresolved.some((entry) => entry.temperror) ? "temperror" : "ok",
    error,
    total: fuller.lookups,
    limit: SPF_LOOKUP_LIMIT,
    lowerBound: fuller.unfollowed > 0 || unresolved.some((entry) => entry.notFollowed),
    unresolved,
    warnings: warnings(ipv4, ipv6, unresolved, error !== undefined),
    terms: fuller.terms,
  };
}

function warnings(
  ipv4: SpfEvaluation,
  ipv6: SpfEvaluation,
  unresolved: SpfUnresolved[],
  failed: boolean,
): string[] {
  const list: string[] = [];
  const at = (entry: { term: string; via: string[] }) =>
    entry.via.length > 0 ? `${entry.term} (through ${entry.via.join(" → ")})` : entry.term;
  const failures = unresolved.filter((entry) => entry.temperror);
  if (failures.length > 0)
    list.push(
      `Receivers would return temperror for now: ${failures.map((entry) => `${at(entry)}: ${entry.reason}`).join("; ")}; ` +
        "what lies behind could not be checked, so run again once the DNS answers.",
    );
  const unknown = unresolved.filter((entry) => !entry.temperror);
  if (unknown.length > 0)
    list.push(
      `Not checked, as it differs from message to message: ${unknown.map((entry) => `${at(entry)}: ${entry.reason}`).join("; ")}.`,
    );
  for (const evaluation of failed ? [] : [ipv4, ipv6]) {
    const maybe = evaluation.unresolved.filter((entry) => entry.mayBeVoid).length;
    if (evaluation.voids.length + maybe > SPF_VOID_LOOKUP_LIMIT) {
      list.push(
        `For some ${evaluation.family === "ipv4" ? "IPv4" : "IPv6"} clients receivers may return permerror: ` +
          `${evaluation.voids.length} lookups find nothing and ${maybe} more may, over the limit of ` +
          `${SPF_VOID_LOOKUP_LIMIT} (RFC 7208 §4.6.4).`,
      );
      break;
    }
  }
  // Where pyspf, the reference implementation, reads the record otherwise than RFC 7208.
  const counted = ipv4.pyspf.countedRedirects;
  if (
    counted.length > 0 &&
    ipv4.lookups <= SPF_LOOKUP_LIMIT &&
    ipv4.lookups + counted.length > SPF_LOOKUP_LIMIT
  )
    list.push(
      `pyspf counts ${counted.join(", ")} beside all (RFC 7208 §6.1 ignores it): ` +
        `${ipv4.lookups + counted.length} lookups, so receivers using it return permerror.`,
    );
  for (const redirect of ipv4.pyspf.ignoredRedirects)
    list.push(
      `pyspf ignores ${redirect} (it reads only "redirect=" in lowercase; RFC 7208 names are case-insensitive), ` +
        "so receivers using it evaluate the record without it.",
    );
  for (const evaluation of failed ? [] : [ipv4, ipv6])
    if (evaluation.voidQueries > SPF_VOID_LOOKUP_LIMIT && evaluation.voids.length <= SPF_VOID_LOOKUP_LIMIT) {
      list.push(
        `pyspf counts each empty answer as a void lookup (${evaluation.voidQueries} for ` +
          `${evaluation.family === "ipv4" ? "IPv4" : "IPv6"} clients), where RFC 7208 §4.6.4 counts terms ` +
          `(${evaluation.voids.length}): receivers using it return permerror.`,
      );
      break;
    }
  return list;
}

/** What a user can do about each permerror. */
const FIXES: Record<SpfError["kind"], string> = {
  syntax: "correct or remove that term",
  "lookup-limit": "remove includes, or replace them with the ip4:/ip6: networks they list",
  "void-limit": "publish the records those terms look for, or remove the terms",
  "mx-limit": "list those senders with ip4:/ip6: instead, or use fewer MX hosts there",
  "include-none": "publish an SPF record there, or remove the include",
  "redirect-none": "publish an SPF record there, or change the redirect",
  "multiple-records": "merge them into one record there",
  loop: "remove the include or redirect that leads back",
};

/**
 * Undefined when receivers evaluate the record; else one sentence: where they stop with permerror
 * (the term, and the includes that lead to it), the rule and its RFC 7208 section, and what the
 * user can do. Over the lookup limit, it also gives each term's cost, so the user sees which
 * include to drop.
 */
export function spfLookupProblem(count: SpfLookupCount): string | undefined {
  const { error } = count;
  if (!error) return undefined;
  const family = error.family === "ipv6" ? " for mail from IPv6 addresses" : "";
  const where = error.via.length > 0 ? ` (reached through ${error.via.join(" → ")})` : "";
  if (error.kind === "lookup-limit") {
    const atLeast = count.lowerBound ? "at least " : "";
    const costs = count.terms.map((node) => `${node.term} ${node.lookups}`).join(", ");
    return (
      `SPF needs ${atLeast}${count.total} DNS lookups, over the limit of ${count.limit} (RFC 7208 §4.6.4): ` +
      `receivers return permerror${family} at ${error.term}${where}, so no mail that reaches it passes SPF; ` +
      `${FIXES[error.kind]} (lookups by term: ${costs}).`
    );
  }
  return (
    `receivers return permerror for this SPF record${family}: ${JSON.stringify(error.term)}${where} ` +
    `${error.rule}; ${FIXES[error.kind]}.`
  );
}

/** Undefined when nothing is left unknown; else the warnings of `count`, as one text. */
export function spfUnresolvedWarning(count: SpfLookupCount): string | undefined {
  return count.warnings.length > 0 ? count.warnings.join(" ") : undefined;
}
