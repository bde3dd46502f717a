/**
 * SPF (RFC 7208) for a zone that already has an SPF record at the domain's name. A name may carry
 * only one SPF record (§3.2; two make receivers return permerror, §4.5), so the service's
 * `include:` is merged into the user's record instead of publishing a second one, and taken out
 * again on destroy. Everything here works on unquoted TXT content (`v=spf1 ~all`, the strings of
 * one record joined, §3.3); Cloudflare's quoted form is `quoteTxt`/`unquoteTxt`.
 *
 * Edits touch only what they add or remove: the user's terms keep their exact spelling, order and
 * spacing, so a merge followed by a removal gives back the user's record byte for byte.
 */

/** Receivers return permerror past this many DNS-querying terms in one evaluation (RFC 7208 §4.6.4). */
export const SPF_LOOKUP_LIMIT = 10;

/** `+` pass (the default when none is written), `-` fail, `~` softfail, `?` neutral (RFC 7208 §4.6.2). */
export type SpfQualifier = "+" | "-" | "~" | "?";

/** The mechanisms RFC 7208 §5 defines. */
export const SPF_MECHANISM_NAMES = ["all", "include", "a", "mx", "ptr", "ip4", "ip6", "exists"] as const;
export type SpfMechanismName = (typeof SPF_MECHANISM_NAMES)[number];

interface SpfTermText {
  /** The term exactly as written (it holds spaces only in the tolerated `include: domain`). */
  text: string;
  /** Where the term starts in the record's text. */
  offset: number;
}

/** A directive: qualifier and mechanism (RFC 7208 §4.6.1). */
export interface SpfMechanism extends SpfTermText {
  kind: "mechanism";
  /** As written; `""` is the default, `+`. */
  qualifier: SpfQualifier | "";
  /** Lowercase (names are case-insensitive, RFC 7208 §4.6.1). */
  name: SpfMechanismName;
  /**
   * What follows the colon, leading spaces dropped: the domain-spec of `include`, `exists`, `a`,
   * `mx`, `ptr` (without `a`/`mx`'s CIDR lengths), the network of `ip4`/`ip6`. Undefined without a colon.
   */
  value: string | undefined;
  /** `a`/`mx`'s dual-cidr-length (`/24`, `//64`, `/24//64`), as written. */
  cidr: string | undefined;
}

/** `name=value` (RFC 7208 §6: `redirect`, `exp`, or an unknown modifier, which receivers ignore). */
export interface SpfModifier extends SpfTermText {
  kind: "modifier";
  /** Lowercase. */
  name: string;
  value: string;
}

/** Anything else: kept verbatim (receivers return permerror for it, RFC 7208 §4.6). */
export interface SpfUnknownTerm extends SpfTermText {
  kind: "unknown";
}

export type SpfTerm = SpfMechanism | SpfModifier | SpfUnknownTerm;

export interface SpfRecord {
  /** `v=spf1` as written (any letter case). */
  version: string;
  terms: SpfTerm[];
}

const VERSION = /^v=spf1(?: |$)/i;
const MECHANISM = /^([+\-~?]?)([a-z][a-z0-9]*)(.*)$/is;
const MODIFIER = /^([a-z][a-z0-9_.-]*)=(.*)$/is;
const DUAL_CIDR = /(?:\/\d+)?(?:\/\/\d+)?$/;

/**
 * True for an SPF record: `v=spf1` then a space or the end (RFC 7208 §4.5: `v=spf10`, DMARC,
 * DKIM and verification TXT records are not), in any letter case (ABNF literals are
 * case-insensitive, RFC 5234 §2.3). Postal's own check wants lowercase `v=spf1`, so a record
 * spelled `V=SPF1` is valid SPF that Postal's check does not see.
 */
export function isSpfRecord(text: string): boolean {
  return VERSION.test(text);
}

/**
 * `record` with its version spelled `v=spf1`, as Postal's check looks for it (a record spelled
 * `V=SPF1` is valid SPF that the check does not see, so a merge into it would never verify);
 * everything after the version untouched. Other TXT content is returned as it is.
 */
export function lowercaseSpfVersion(record: string): string {
  return isSpfRecord(record) ? `v=spf1${record.slice(6)}` : record;
}

/**
 * The terms of an SPF record, or undefined for other TXT content. Tolerant, so that nothing of the
 * user's is lost: any run of spaces separates terms, a term that is neither a mechanism nor a
 * modifier is kept as `unknown`, and `include: domain` (a space after the colon, which Postal's
 * check accepts) is read as one include. Each term keeps its text and offset, for byte-exact edits.
 */
export function parseSpf(text: string): SpfRecord | undefined {
  if (!isSpfRecord(text)) return undefined;
  const tokens = [...text.slice(6).matchAll(/[^ ]+/g)].map((match) => ({
    text: match[0],
    offset: 6 + match.index,
  }));
  const terms: SpfTerm[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const next = tokens[i + 1];
    if (/^[+\-~?]?(?:include|exists):$/i.test(token.text) && next && parseTerm(next).kind === "unknown") {
      terms.push(
        parseTerm({ text: text.slice(token.offset, next.offset + next.text.length), offset: token.offset }),
      );
      i++;
    } else {
      terms.push(parseTerm(token));
    }
  }
  return { version: text.slice(0, 6), terms };
}

function parseTerm({ text, offset }: SpfTermText): SpfTerm {
  const mechanism = MECHANISM.exec(text);
  if (mechanism) {
    const name = mechanism[2].toLowerCase() as SpfMechanismName;
    const rest = mechanism[3];
    const takesCidr = name === "a" || name === "mx";
    if (
      SPF_MECHANISM_NAMES.includes(name) &&
      (rest === "" || rest.startsWith(":") || (takesCidr && rest.startsWith("/")))
    ) {
      const cidr = takesCidr ? DUAL_CIDR.exec(rest)?.[0] || undefined : undefined;
      const argument = cidr ? rest.slice(0, -cidr.length) : rest;
      return {
        kind: "mechanism",
        text,
        offset,
        qualifier: mechanism[1] as SpfQualifier | "",
        name,
        value: argument.startsWith(":") ? argument.slice(1).replace(/^ +/, "") : undefined,
        cidr,
      };
    }
  }
  const modifier = MODIFIER.exec(text);
  if (modifier)
    return { kind: "modifier", text, offset, name: modifier[1].toLowerCase(), value: modifier[2] };
  return { kind: "unknown", text, offset };
}

function parseOrThrow(text: string, caller: string): SpfRecord {
  const record = parseSpf(text);
  if (!record)
    throw new Error(
      `${caller}: not an SPF record (it must start with "v=spf1"): ${JSON.stringify(text.slice(0, 80))}`,
    );
  return record;
}

/** Domain names compare without letter case and without a final dot (`Spf.Example.com.` = `spf.example.com`). */
function sameDomain(a: string, b: string): boolean {
  return a.toLowerCase().replace(/\.$/, "") === b.toLowerCase().replace(/\.$/, "");
}

function isInclude(term: SpfTerm): term is SpfMechanism & { name: "include" } {
  return term.kind === "mechanism" && term.name === "include";
}

function isAll(term: SpfTerm): boolean {
  return term.kind === "mechanism" && term.name === "all";
}

/**
 * The domains of the service's `include:` mechanisms that authorize (qualifier `+` or none): what
 * goes into a user's existing record. Postal: "if an SPF record already exists, only the include
 * part needs adding"; its `a` and `mx` describe the service's own domain, not the user's.
 */
export function serviceSpfIncludes(serviceRecordText: string): string[] {
  const includes: string[] = [];
  for (const term of parseOrThrow(serviceRecordText, "serviceSpfIncludes").terms) {
    if (!isInclude(term) || (term.qualifier !== "" && term.qualifier !== "+")) continue;
    if (term.value && !includes.some((domain) => sameDomain(domain, term.value!))) includes.push(term.value);
  }
  return includes;
}

/**
 * The includes a merge would add: those the record has no `include:` of (any qualifier, any
 * position, domains compared without case or final dot), each once. What the component records in
 * state, so that destroy removes only what it added.
 */
export function missingSpfIncludes(record: string, includes: readonly string[]): string[] {
  const terms = parseOrThrow(record, "missingSpfIncludes").terms;
  const missing: string[] = [];
  for (const domain of includes) {
    checkIncludeDomain(domain, "missingSpfIncludes");
    const present = terms.some(
      (term) => isInclude(term) && term.value !== undefined && sameDomain(term.value, domain),
    );
    if (!present && !missing.some((other) => sameDomain(other, domain))) missing.push(domain);
  }
  return missing;
}

function checkIncludeDomain(domain: string, caller: string): void {
  if (!/^[^\s:=]+$/.test(domain))
    throw new Error(
      `${caller}: an include is a domain name, without "include:" or spaces: ${JSON.stringify(domain)}`,
    );
}

/**
 * The user's record with `include:<domain>` added for each include it lacks (see
 * `missingSpfIncludes`); unchanged when it has them all. Added where evaluation reaches them
 * before the record's verdict: just before the first `all` (its qualifier kept; mechanisms after
 * `all` are never evaluated, RFC 7208 §5.1), else after the last mechanism, else before the first
 * modifier (a record of only `redirect=`: mechanisms are evaluated before a redirect is followed,
 * §6.1, so mail the include passes passes, and everything else still gets the redirect's verdict),
 * else at the end. The user's terms are never moved, respelled or respaced; the added text is
 * `include:<domain>` joined with single spaces.
 *
 * An include the user wrote with another qualifier (`~include:…`) or after `all` counts as
 * present (a second copy would duplicate a mechanism and not change the verdict of the first):
 * `spfIncludeProblem` says why it does not authorize the service.
 */
export function mergeSpfIncludes(existing: string, includes: readonly string[]): string {
  const { terms } = parseOrThrow(existing, "mergeSpfIncludes");
  const added = missingSpfIncludes(existing, includes).map((domain) => `include:${domain}`);
  if (added.length === 0) return existing;

  const firstAll = terms.findIndex(isAll);
  let lastMechanism = -1;
  terms.forEach((term, index) => {
    if (term.kind === "mechanism") lastMechanism = index;
  });
  const before = firstAll >= 0 ? firstAll : lastMechanism >= 0 ? lastMechanism + 1 : 0;
  const next = terms[before];
  if (next) return `${existing.slice(0, next.offset)}${added.join(" ")} ${existing.slice(next.offset)}`;
  const end = terms.length > 0 ? endOf(terms[terms.length - 1]) : 6;
  return `${existing.slice(0, end)} ${added.join(" ")}${existing.slice(end)}`;
}

function endOf(term: SpfTermText): number {
  return term.offset + term.text.length;
}

/**
 * The inverse of `mergeSpfIncludes`, for destroy: removes every `include:` of the given domains
 * that authorizes (qualifier `+` or none, the kind a merge adds), with the spaces that joined it,
 * and leaves every other byte as it was. An include with another qualifier is the user's and
 * stays; a record without them (the user took them out) comes back unchanged. Pass the includes
 * `missingSpfIncludes` reported before the merge, so that an include the user had is kept.
 */
export function removeSpfIncludes(record: string, includes: readonly string[]): string {
  for (const domain of includes) checkIncludeDomain(domain, "removeSpfIncludes");
  let text = record;
  for (;;) {
    const { terms } = parseOrThrow(text, "removeSpfIncludes");
    const index = terms.findIndex(
      (term) =>
        isInclude(term) &&
        (term.qualifier === "" || term.qualifier === "+") &&
        term.value !== undefined &&
        includes.some((domain) => sameDomain(domain, term.value!)),
    );
    if (index < 0) return text;
    const term = terms[index];
    const next = terms[index + 1];
    // With a term after it, the spaces after it go (a merge inserted `include:x ` before a term);
    // as the last term, the spaces before it (a merge appended ` include:x`).
    text = next
      ? text.slice(0, term.offset) + text.slice(next.offset)
      : text.slice(0, index > 0 ? endOf(terms[index - 1]) : 6) + text.slice(endOf(term));
  }
}

/**
 * Why a record that already names the include does not authorize the service, or undefined when
 * one of its includes does (or it has none: `mergeSpfIncludes` adds it). Receivers evaluate terms
 * left to right and stop at the first match: an include with qualifier `-`, `~` or `?` gives that
 * verdict to the service's mail (RFC 7208 §4.6.2), one after `all` is never evaluated (§5.1), and
 * `include: domain` is a syntax error, permerror for every message (§4.6, §12).
 */
export function spfIncludeProblem(record: string, include: string): string | undefined {
  const { terms } = parseOrThrow(record, "spfIncludeProblem");
  const firstAll = terms.findIndex(isAll);
  const found = terms.flatMap((term, index) =>
    isInclude(term) && term.value !== undefined && sameDomain(term.value, include) ? [{ term, index }] : [],
  );
  const problem = ({ term, index }: { term: SpfMechanism; index: number }): string | undefined => {
    if (firstAll >= 0 && index > firstAll)
      return `${term.text} comes after ${terms[firstAll].text}, so receivers never evaluate it (RFC 7208 §5.1)`;
    if (term.text.includes(" "))
      return `"${term.text}" has a space after the colon: a syntax error, receivers return permerror (RFC 7208 §4.6, §12)`;
    if (term.qualifier !== "" && term.qualifier !== "+")
      return (
        `${term.text} has the qualifier "${term.qualifier}": the service's mail gets ` +
        `${QUALIFIER_RESULTS[term.qualifier]}, not pass (RFC 7208 §4.6.2)`
      );
    return undefined;
  };
  if (found.length === 0 || found.some((entry) => problem(entry) === undefined)) return undefined;
  return problem(found[0]);
}

const QUALIFIER_RESULTS = { "-": "fail", "~": "softfail", "?": "neutral" } as const;

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

/**
 * Undefined when the TXT records at one name hold at most one SPF record; else a problem naming
 * how many: with more than one, receivers return permerror for every message (RFC 7208 §3.2,
 * §4.5). Takes records as text or, as node:dns `resolveTxt` gives them, as character-strings.
 */
export function spfRecordCountProblem(
  records: readonly (string | readonly string[])[],
  name?: string,
): string | undefined {
  const count = records
    .map((record) => (typeof record === "string" ? record : record.join("")))
    .filter(isSpfRecord).length;
  if (count <= 1) return undefined;
  return (
    `${count} SPF records${name ? ` at ${name}` : ""}: a name may have only one, receivers return ` +
    `permerror (RFC 7208 §3.2, §4.5); merge them into one record`
  );
}
