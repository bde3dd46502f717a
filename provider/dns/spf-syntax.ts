/**
 * An SPF record read the way receivers read it: RFC 7208's grammar (§4.6, §12) term by term,
 * with nothing tolerated. `parseSpf` (spf-record.ts) reads records leniently so that a merge keeps
 * every byte of the user's; this module decides whether receivers can evaluate them at all.
 */
import { isIPv6 } from "node:net";
import { macroStringProblem } from "./spf-macro";
import { isSpfRecord, SPF_MECHANISM_NAMES, SpfMechanismName, SpfQualifier } from "./spf-record";

/** A mechanism as receivers read it (RFC 7208 §5). */
export interface StrictMechanism {
  kind: "mechanism";
  /** The term as written. */
  text: string;
  /** `+` when none is written (RFC 7208 §4.6.2). */
  qualifier: SpfQualifier;
  name: SpfMechanismName;
  /** The domain-spec, unexpanded (`include`, `exists`; `a`, `mx`, `ptr` when written). */
  domainSpec?: string;
  /** The prefix length for IPv4 and IPv6 clients (`ip4`, `ip6`, `a`, `mx`), when written. */
  cidr4?: number;
  cidr6?: number;
}

/** A modifier as receivers read it (RFC 7208 §6): `redirect`, `exp`, or an unknown one (ignored). */
export interface StrictModifier {
  kind: "modifier";
  text: string;
  /** Lowercase (names are case-insensitive, RFC 5234 §2.3). */
  name: string;
  /** As written in the record (pyspf acts only on `redirect=` and `exp=` written in lowercase). */
  writtenName: string;
  value: string;
}

export type StrictTerm = StrictMechanism | StrictModifier;

/** A term receivers cannot read: the record is a permerror for every message (RFC 7208 §4.6). */
export interface SpfSyntaxError {
  term: string;
  /** Why, with the RFC section. */
  rule: string;
}

const MODIFIER = /^([a-z][a-z0-9_.-]*)=(.*)$/is;
const MECHANISM = /^([+\-~?]?)([a-z][a-z0-9]*)(.*)$/is;
const TOPLABEL = /^(?:[a-z0-9]*[a-z][a-z0-9]*|[a-z0-9]+-[a-z0-9-]*[a-z0-9])$/i;
const DUAL_CIDR = /^(?:\/(0|[1-9]\d*))?(?:\/\/(0|[1-9]\d*))?$/;
const QNUM = /^(?:\d|[1-9]\d|1\d\d|2[0-4]\d|25[0-5])$/;

/**
 * The terms of an SPF record as RFC 7208 §12 reads them, or the first term that does not read.
 * Terms are separated by spaces (SP) only: a tab, or any other character outside visible ASCII,
 * is part of a term, which then matches no production, and receivers return permerror (§4.6,
 * §4.6.1). The same holds for `include: domain` (a space after the colon leaves `include:`
 * without a domain), unknown mechanisms, malformed networks, prefix lengths and macros, and
 * `redirect=` or `exp=` written twice (§6). A syntax error anywhere, even after `all`, makes the
 * record a permerror for every message (§4.6).
 */
export function readSpfTerms(record: string): { terms: StrictTerm[] } | { error: SpfSyntaxError } {
  if (!isSpfRecord(record))
    throw new Error(`readSpfTerms: not an SPF record: ${JSON.stringify(record.slice(0, 80))}`);
  const terms: StrictTerm[] = [];
  const seen = new Set<string>();
  for (const text of record.slice(6).split(" ")) {
    if (text === "") continue;
    const term = readTerm(text);
    if ("rule" in term) return { error: term };
    if (term.kind === "modifier" && (term.name === "redirect" || term.name === "exp")) {
      if (seen.has(term.name))
        return {
          error: {
            term: text,
            rule: `is a second ${term.name}= modifier: each may appear once (RFC 7208 §6)`,
          },
        };
      seen.add(term.name);
    }
    terms.push(term);
  }
  return { terms };
}

function readTerm(text: string): StrictTerm | SpfSyntaxError {
  const whitespace = /[\t\n\v\f\r\u00a0]/.exec(text);
  if (whitespace) {
    const what = whitespace[0] === "\t" ? "a tab" : "a line break or other white space";
    return {
      term: text,
      rule:
        `holds ${what}: terms are separated by spaces only (RFC 7208 §4.6.1, §12), ` +
        "so receivers read it as one term that is not a mechanism or modifier",
    };
  }
  const modifier = MODIFIER.exec(text);
  if (modifier) {
    const [, writtenName, value] = modifier;
    const name = writtenName.toLowerCase();
    const known = name === "redirect" || name === "exp";
    const problem = known ? domainSpecProblem(value) : macroStringProblem(value);
    if (problem)
      return {
        term: text,
        rule: known
          ? `has no valid domain: ${problem}`
          : `has a value that is not a macro-string: ${problem}`,
      };
    return { kind: "modifier", text, name, writtenName, value };
  }
  const mechanism = MECHANISM.exec(text);
  const name = mechanism?.[2].toLowerCase() as SpfMechanismName | undefined;
  if (!mechanism || !name || !SPF_MECHANISM_NAMES.includes(name))
    return { term: text, rule: "is not a mechanism or a modifier (RFC 7208 §4.6.1, §12)" };
  const qualifier = (mechanism[1] || "+") as SpfQualifier;
  const rest = mechanism[3];
  const read = readArgument(name, rest);
  if (typeof read === "string") return { term: text, rule: read };
  return { kind: "mechanism", text, qualifier, name, ...read };
}

type Argument = Pick<StrictMechanism, "domainSpec" | "cidr4" | "cidr6">;

/** What follows a mechanism's name, or why it does not read (RFC 7208 §5, §12). */
function readArgument(name: SpfMechanismName, rest: string): Argument | string {
  switch (name) {
    case "all":
      return rest === "" ? {} : `has "${rest}" after all, which takes nothing (RFC 7208 §5.1, §12)`;
    case "include":
    case "exists": {
      const section = name === "include" ? "§5.2" : "§5.7";
      if (rest === "")
        return `names no domain: ${name} needs one, as in ${name}:example.com (RFC 7208 ${section}, §12)`;
      if (rest === ":")
        return `has nothing after the colon (a space there ends the term), and ${name} needs a domain, as in ${name}:example.com (RFC 7208 ${section}, §12)`;
      if (!rest.startsWith(":"))
        return `has "${rest}" after ${name}, where only ":" and a domain may follow (RFC 7208 ${section}, §12)`;
      const problem = domainSpecProblem(rest.slice(1));
      return problem ? `has no valid domain: ${problem}` : { domainSpec: rest.slice(1) };
    }
    case "a":
    case "mx":
    case "ptr": {
      const section = { a: "§5.3", mx: "§5.4", ptr: "§5.5" }[name];
      const [, spec, lengths] = /^(.*?)((?:\/\d+)?(?:\/\/\d+)?)$/s.exec(rest)!;
      const cidr = DUAL_CIDR.exec(lengths);
      const [cidr4, cidr6] = [cidr?.[1], cidr?.[2]].map((n) => (n === undefined ? undefined : Number(n)));
      if (lengths !== "" && name === "ptr")
        return `has a prefix length, which ptr does not take (RFC 7208 §5.5, §12)`;
      if (!cidr || (cidr4 ?? 0) > 32 || (cidr6 ?? 0) > 128)
        return `has the prefix length "${lengths}": IPv4 takes /0 to /32, IPv6 //0 to //128 (RFC 7208 §5.6, §12)`;
      if (spec !== "" && (!spec.startsWith(":") || spec === ":"))
        return `has "${spec}" after ${name}, where only ":" and a domain may follow (RFC 7208 ${section}, §12)`;
      const problem = spec === "" ? undefined : domainSpecProblem(spec.slice(1));
      if (problem) return `has no valid domain: ${problem}`;
      return { ...(spec === "" ? {} : { domainSpec: spec.slice(1) }), cidr4, cidr6 };
    }
    case "ip4":
    case "ip6": {
      const [family, max, example] =
        name === "ip4" ? ["IPv4", 32, "192.0.2.0/24"] : ["IPv6", 128, "2001:db8::/32"];
      const match = /^:([^/]*)(?:\/([^/]*))?$/.exec(rest);
      if (!match)
        return `is not ${name}: followed by a network and at most one prefix length, as in ${name}:${example} (RFC 7208 §5.6)`;
      const [, network, length] = match;
      const valid =
        name === "ip4"
          ? network.split(".").length === 4 && network.split(".").every((n) => QNUM.test(n))
          : isIPv6(network) && !network.includes("%");
      if (!valid) return `has "${network}", which is not an ${family} address (RFC 7208 §5.6)`;
      if (length !== undefined && (!/^(?:0|[1-9]\d*)$/.test(length) || Number(length) > max))
        return `has the prefix length "/${length}", not one of /0 to /${max} (RFC 7208 §5.6)`;
      const bits = length === undefined ? undefined : Number(length);
      return name === "ip4" ? { cidr4: bits } : { cidr6: bits };
    }
  }
}

/**
 * Why `spec` is not a domain-spec (RFC 7208 §7.1, §12: a macro-string ending in a dot and a
 * top label, as `.com`, or in a macro), or undefined. `example` alone, `192.0.2.1`, `"x"` and
 * anything with a space or tab are not domain-specs.
 */
export function domainSpecProblem(spec: string): string | undefined {
  if (spec === "") return "nothing is given (RFC 7208 §12)";
  const macro = macroStringProblem(spec);
  if (macro) return `"${spec}" is not a domain: ${macro}`;
  if (/(?:%\{[^}]*\}|%[%_-])$/.test(spec)) return undefined;
  const trimmed = spec.replace(/\.$/, "");
  const dot = trimmed.lastIndexOf(".");
  if (dot < 0 || !TOPLABEL.test(trimmed.slice(dot + 1)))
    return `"${spec}" is not a domain name: it must end in a dot and a top label such as ".com" (RFC 7208 §7.1, §12)`;
  return undefined;
}
