/**
 * An SPF record (RFC 7208) parsed into its terms, each with its exact text and offset, so edits
 * can touch only what they add or remove.
 */

/** `+` pass (the default when none is written), `-` fail, `~` softfail, `?` neutral (RFC 7208 §4.6.2). */
export type SpfQualifier = "+" | "-" | "~" | "?";

/** The mechanisms RFC 7208 §5 defines. */
export const SPF_MECHANISM_NAMES = ["all", "include", "a", "mx", "ptr", "ip4", "ip6", "exists"] as const;
export type SpfMechanismName = (typeof SPF_MECHANISM_NAMES)[number];

export interface SpfTermText {
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
 * The terms of an SPF record, or undefined for other TXT content, read leniently so that edits keep
 * every byte of the user's: any run of spaces separates terms (spaces only, as RFC 7208 §4.6.1
 * says: a tab stays inside the term it follows), a term that is neither a mechanism nor a modifier
 * is kept as `unknown`, and `include: domain` (a space after the colon, which Postal's check
 * accepts) is read as one include. Receivers reject all of those (permerror): whether they can
 * evaluate a record is `readSpfTerms`' (spf-syntax.ts) and `countSpfLookups`' question, not this
 * one's. Each term keeps its text and offset, for byte-exact edits.
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

/** Internal: the parsed record, or an error naming `caller`. */
export function parseOrThrow(text: string, caller: string): SpfRecord {
  const record = parseSpf(text);
  if (!record)
    throw new Error(
      `${caller}: not an SPF record (it must start with "v=spf1"): ${JSON.stringify(text.slice(0, 80))}`,
    );
  return record;
}

/** Domain names compare without letter case and without a final dot (`Spf.Example.com.` = `spf.example.com`). */
export function sameDomain(a: string, b: string): boolean {
  return a.toLowerCase().replace(/\.$/, "") === b.toLowerCase().replace(/\.$/, "");
}

export function isInclude(term: SpfTerm): term is SpfMechanism & { name: "include" } {
  return term.kind === "mechanism" && term.name === "include";
}

export function isAll(term: SpfTerm): boolean {
  return term.kind === "mechanism" && term.name === "all";
}

/**
 * True for `all`, and for a term that holds one after white space other than a space
 * (`mx<TAB>~all`): RFC 7208 separates terms with spaces only, so receivers that follow it reject
 * such a record, but one that splits on any white space reads an `all` there, and never evaluates
 * what comes after it.
 */
export function reachesAll(term: SpfTerm): boolean {
  return isAll(term) || term.text.split(/\s+/).some((word) => /^[+\-~?]?all$/i.test(word));
}
