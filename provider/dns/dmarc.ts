import type { CheckFailure } from "../inputs";
import { describeValue, domainNameProblem } from "../inputs";
import { unquoteTxt } from "./txt";

/**
 * DMARC (RFC 7489): the policy a domain publishes as a TXT record at `_dmarc.<domain>`, telling
 * receivers what to do with mail that fails SPF and DKIM alignment and where to send reports.
 * The email service does not check it, so nothing waits for it. Plain functions only: the
 * settings are checked when the program runs, so a mistake fails `pulumi preview`.
 */

/** The label DMARC policies are published under (RFC 7489 §6.1). */
export const DMARC_RECORD_PREFIX = "_dmarc";

/** What receivers do with mail that fails DMARC: report only, treat as suspicious, refuse it. */
export const DMARC_POLICIES = ["none", "quarantine", "reject"] as const;
export type DmarcPolicy = (typeof DMARC_POLICIES)[number];

/** How closely the From domain must match the domain SPF or DKIM authenticated. */
export const DMARC_ALIGNMENTS = ["relaxed", "strict"] as const;
export type DmarcAlignment = (typeof DMARC_ALIGNMENTS)[number];

/** When a failure report is asked for (the `fo` tag's `0`, `1`, `d`, `s`, in that order). */
export const DMARC_FAILURE_REPORT_OPTIONS = ["allFail", "anyFail", "dkimFail", "spfFail"] as const;
export type DmarcFailureReportOption = (typeof DMARC_FAILURE_REPORT_OPTIONS)[number];

/** A DMARC record's tags by lowercase name, values as written (`{ v: "DMARC1", p: "reject" }`). */
export type DmarcTags = Record<string, string>;

/**
 * A DMARC policy, written with readable names; each becomes one tag of the record. Settings left
 * out, or set to their default, are left out of the record (receivers apply the same defaults).
 */
export interface DmarcArgs {
  /**
   * The `p` tag: what receivers should do with mail from the domain that fails DMARC.
   * `"none"` only asks for reports (start here, with `aggregateReports`, to see who sends as the
   * domain); `"quarantine"` asks them to treat it as suspicious (usually the spam folder);
   * `"reject"` asks them to refuse it. Required.
   * @example "quarantine"
   */
  policy: DmarcPolicy;
  /**
   * The `sp` tag: the policy for subdomains of the domain (`news.example.com` under
   * `example.com`). Same values as `policy`. Left out of the record when it equals `policy`.
   * @default the value of `policy`
   * @example "reject"
   */
  subdomainPolicy?: DmarcPolicy;
  /**
   * The `rua` tag: where receivers send aggregate reports (daily XML summaries of who sent mail
   * as the domain and whether it passed). At least one `mailto:` URI, each with one address
   * (RFC 7489 §6.2; receivers need not support other schemes, so `https:` is refused). A URI may
   * end in a size limit, `!` and a number with an optional unit `k`, `m`, `g` or `t`
   * (`"mailto:dmarc@example.com!10m"`). Within an address, `,` `;` `!` `%` `?` `#` and what a URI
   * cannot carry (spaces, quotes, `^` `{` `|` `}`…) are percent-encoded (`%2C`, `%3B`, `%21`…);
   * international domains are given in punycode.
   * Receivers must send to at least two URIs and may ignore more (RFC 7489 §6.2).
   *
   * An address in another domain receives reports only if that domain authorizes it with a TXT
   * record `v=DMARC1` at `<this domain>._report._dmarc.<its domain>` (RFC 7489 §7.1), e.g.
   * `example.com._report._dmarc.reports.example.net` for `mailto:dmarc@reports.example.net`.
   * @default none: no aggregate reports are asked for
   * @example ["mailto:dmarc@example.com"]
   */
  aggregateReports?: string[];
  /**
   * The `ruf` tag: where receivers send failure reports (one per failing message, with its
   * headers; many large receivers send none, for privacy). Same rules as `aggregateReports`,
   * including the authorization of addresses in other domains (RFC 7489 §7.1).
   * @default none: no failure reports are asked for
   * @example ["mailto:dmarc-failures@example.com"]
   */
  failureReports?: string[];
  /**
   * The `pct` tag: the percentage of failing mail the policy applies to, a whole number from 0 to
   * 100; the rest is handled one step milder (`reject` as `quarantine`, `quarantine` as `none`).
   * For a gradual roll-out of `quarantine` or `reject`. Left out of the record at 100.
   * @default 100
   * @example 25
   */
  percent?: number;
  /**
   * The `adkim` tag: DKIM alignment. `"relaxed"` accepts a DKIM signature of the same
   * organizational domain (`mail.example.com` for `example.com`); `"strict"` only of exactly the
   * From domain. Left out of the record when relaxed.
   * @default "relaxed"
   * @example "strict"
   */
  dkimAlignment?: DmarcAlignment;
  /**
   * The `aspf` tag: SPF alignment, as `dkimAlignment` but for the domain SPF checked (the
   * envelope sender). The service sends with its return path, a subdomain of the sending domain
   * (`psrp.mail.example.com`, Postal's default), which only `"relaxed"` aligns: with `"strict"`,
   * DMARC rests on DKIM alone. Left out of the record when relaxed.
   * @default "relaxed"
   * @example "strict"
   */
  spfAlignment?: DmarcAlignment;
  /**
   * The `fo` tag: which failures produce a failure report; only with `failureReports` (receivers
   * ignore it without `ruf`). Any of `"allFail"` (`0`: SPF and DKIM both failed to give an aligned
   * pass), `"anyFail"` (`1`: either did), `"dkimFail"` (`d`: a DKIM signature failed to verify,
   * aligned or not), `"spfFail"` (`s`: SPF failed, aligned or not); each once. Written in that
   * order whatever the order given; left out of the record when it is `["allFail"]`.
   * @default ["allFail"]
   * @example ["anyFail"]
   */
  failureReportOptions?: DmarcFailureReportOption[];
}

/** Each setting and the tag it writes, in the record's order (after `v` and `p`). */
const SETTINGS: Record<keyof DmarcArgs, string> = {
  policy: "p",
  subdomainPolicy: "sp",
  dkimAlignment: "adkim",
  spfAlignment: "aspf",
  percent: "pct",
  aggregateReports: "rua",
  failureReports: "ruf",
  failureReportOptions: "fo",
};

/** The `fo` tag's character for each option. */
const FAILURE_REPORT_OPTION_TAGS: Record<DmarcFailureReportOption, string> = {
  allFail: "0",
  anyFail: "1",
  dkimFail: "d",
  spfFail: "s",
};

/** The largest size limit a report URI may carry: the number must fit 64 bits unsigned (§6.4). */
const MAX_SIZE_LIMIT = 18446744073709551615n;

/** `_dmarc.example.com` for `example.com`: lowercase, without a trailing dot (as Cloudflare names it). */
export function dmarcRecordName(domain: string): string {
  return `${DMARC_RECORD_PREFIX}.${domain.toLowerCase().replace(/\.$/, "")}`;
}

/**
 * Everything wrong with DMARC settings, one failure per bad setting (per list entry for lists),
 * named by its path (`dmarc.aggregateReports[1]`), with a reason a person can act on. Settings
 * are taken as a JavaScript program may give them: anything at all; `undefined` and `null` are
 * left out. Empty when the settings are good.
 */
export function dmarcProblems(args: unknown, path = "dmarc"): CheckFailure[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return [
      { property: path, reason: `must be an object such as { policy: "none" }, not ${described(args)}` },
    ];
  }
  const given: Record<string, unknown> = { ...args };
  const problems: CheckFailure[] = [];
  const add = (property: string, reason: string | undefined) => {
    if (reason !== undefined) problems.push({ property, reason });
  };

  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(SETTINGS, key)) add(propertyPath(path, key), unknownSettingReason(key));
  }

  if (absent(given.policy)) add(`${path}.policy`, `is required: one of ${listed(DMARC_POLICIES, "or")}`);
  else add(`${path}.policy`, oneOfProblem(given.policy, DMARC_POLICIES, {}));
  if (!absent(given.subdomainPolicy)) {
    add(`${path}.subdomainPolicy`, oneOfProblem(given.subdomainPolicy, DMARC_POLICIES, {}));
  }
  for (const key of ["dkimAlignment", "spfAlignment"] as const) {
    if (!absent(given[key])) {
      add(`${path}.${key}`, oneOfProblem(given[key], DMARC_ALIGNMENTS, { r: "relaxed", s: "strict" }));
    }
  }
  if (!absent(given.percent)) add(`${path}.percent`, percentProblem(given.percent));

  for (const key of ["aggregateReports", "failureReports"] as const) {
    if (absent(given[key])) continue;
    problems.push(
      ...listProblems(given[key], `${path}.${key}`, {
        entryProblem: reportUriProblem,
        example: ["mailto:dmarc@example.com"],
        whenEmpty: `leave ${key} out to ask for none`,
      }),
    );
  }

  if (!absent(given.failureReportOptions)) {
    const optionProblems = listProblems(given.failureReportOptions, `${path}.failureReportOptions`, {
      entryProblem: (value) =>
        oneOfProblem(value, DMARC_FAILURE_REPORT_OPTIONS, {
          0: "allFail",
          1: "anyFail",
          d: "dkimFail",
          s: "spfFail",
        }),
      example: ["anyFail"],
      whenEmpty: 'leave failureReportOptions out for the default, ["allFail"]',
    });
    problems.push(...optionProblems);
    if (optionProblems.length === 0 && absent(given.failureReports)) {
      add(
        `${path}.failureReportOptions`,
        "has no effect without failureReports: receivers ignore fo when the record has no ruf (RFC 7489 §6.3)",
      );
    }
  }
  return problems;
}

/**
 * The record's TXT content, unquoted: `v=DMARC1; p=…` first, then `sp`, `adkim`, `aspf`, `pct`,
 * `rua`, `ruf`, `fo`, each only when it differs from its default; URIs in the order given, joined
 * by `,`. The same settings always give the same text. Give it to `quoteTxt` (or to
 * `cloudflareRecordArgs` as a TXT record) for Cloudflare: a long list of URIs runs past one
 * 255-byte TXT string. Throws, listing the problems (also as the error's `problems`), when
 * `dmarcProblems` finds any.
 * @example dmarcRecordContent({ policy: "reject", aggregateReports: ["mailto:dmarc@example.com"] })
 *   // "v=DMARC1; p=reject; rua=mailto:dmarc@example.com"
 */
export function dmarcRecordContent(args: DmarcArgs): string {
  const problems = dmarcProblems(args);
  if (problems.length > 0) throw dmarcSettingsError(problems);
  const tags: [string, string][] = [
    ["v", "DMARC1"],
    ["p", args.policy],
  ];
  const subdomainPolicy = args.subdomainPolicy ?? args.policy;
  if (subdomainPolicy !== args.policy) tags.push(["sp", subdomainPolicy]);
  if (args.dkimAlignment === "strict") tags.push(["adkim", "s"]);
  if (args.spfAlignment === "strict") tags.push(["aspf", "s"]);
  if ((args.percent ?? 100) !== 100) tags.push(["pct", String(args.percent)]);
  if (args.aggregateReports) tags.push(["rua", args.aggregateReports.join(",")]);
  if (args.failureReports) tags.push(["ruf", args.failureReports.join(",")]);
  const options = DMARC_FAILURE_REPORT_OPTIONS.filter((option) =>
    args.failureReportOptions?.includes(option),
  );
  if (options.length > 0 && !(options.length === 1 && options[0] === "allFail")) {
    tags.push(["fo", options.map((option) => FAILURE_REPORT_OPTION_TAGS[option]).join(":")]);
  }
  return tags.map(([tag, value]) => `${tag}=${value}`).join("; ");
}

/**
 * The tags of a DMARC record, or undefined for text that is not one. Takes a record's text as a
 * resolver joins it, or TXT content as Cloudflare stores it (quoted strings, see `quoteTxt`).
 *
 * A DMARC record starts with the `v=DMARC1` tag (RFC 7489 §6.3, §6.6.3); whitespace around `=`
 * and `;` is allowed, tag names are read in any letter case, and so is `DMARC1` (the RFC's
 * grammar spells the value in capitals, as `dmarcRecordContent` writes it, but a record written
 * `v=dmarc1` is evidently meant as one, and some receivers read it so). The rest is read as
 * `tag=value` pairs separated by `;`: names lowercase, values as written without surrounding
 * whitespace. A piece that is not a pair is skipped (receivers ignore what they cannot parse); a
 * tag given twice keeps its first value. The tags are not checked further: this reads records,
 * `dmarcProblems` judges settings.
 */
export function parseDmarc(text: string): DmarcTags | undefined {
  if (typeof text !== "string") return undefined;
  // A DMARC record cannot start with a quote: quoted text is TXT content.
  const record = /^\s*"/.test(text) ? unquoteTxt(text) : text;
  const [first, ...rest] = record.split(";");
  const version = /^[ \t\r\n]*v[ \t\r\n]*=[ \t\r\n]*(DMARC1)[ \t\r\n]*$/i.exec(first);
  if (!version) return undefined;
  const tags: DmarcTags = { v: version[1] };
  for (const piece of rest) {
    const pair = /^[ \t\r\n]*([A-Za-z][A-Za-z0-9_]*)[ \t\r\n]*=([^]*)$/.exec(piece);
    if (!pair) continue;
    const name = pair[1].toLowerCase();
    if (!Object.hasOwn(tags, name)) tags[name] = pair[2].replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
  }
  return tags;
}

/** True for a DMARC record's text or TXT content (it starts with `v=DMARC1`; see `parseDmarc`). */
export function isDmarcRecord(text: string): boolean {
  return parseDmarc(text) !== undefined;
}

// ---- the checks -----------------------------------------------------------------------------------

/**
 * Why a report URI is refused, or undefined when it is a `mailto:` URI with one address and an
 * optional size limit (RFC 7489 §6.2, §6.4; RFC 6068 for `mailto:`).
 */
function reportUriProblem(value: unknown): string | undefined {
  const example = '"mailto:dmarc@example.com"';
  if (typeof value !== "string") return `must be a mailto: URI such as ${example}, not ${described(value)}`;
  if (value === "") return `must not be empty: give a mailto: URI such as ${example}`;
  const shown = quoted(value);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1];
  if (scheme === undefined) {
    const fix = /^[^\s:@;,!]+@[^\s@;,!]+$/.test(value) ? `: use ${quoted(`mailto:${value}`)}` : "";
    return `must be a mailto: URI such as ${example}, not ${shown}${fix}`;
  }
  if (scheme.toLowerCase() !== "mailto") {
    return `must be a mailto: URI such as ${example}, not ${shown}: receivers need only send reports by email (RFC 7489 §6.2)`;
  }
  if (value.includes(";")) return `must not contain ";", which would end the tag: write it as "%3B"`;
  if (value.includes(",")) {
    return 'must not contain ",": give each address as its own entry, and write a comma within an address as "%2C" (RFC 7489 §6.4)';
  }
  const body = value.slice(scheme.length + 1);
  const bang = body.indexOf("!");
  const address = bang < 0 ? body : body.slice(0, bang);
  if (bang >= 0) {
    const size = /^([0-9]+)[kmgt]?$/i.exec(body.slice(bang + 1));
    if (!size) {
      return 'may have "!" only once, before a size limit at the end such as "!10m" (a number, then k, m, g or t); write a "!" within the address as "%21"';
    }
    if (BigInt(size[1]) > MAX_SIZE_LIMIT) return "has a size limit too large: the number must fit in 64 bits";
    if (BigInt(size[1]) === 0n)
      return "has a size limit of 0, which no report fits: leave the limit out or raise it";
  }
  if (/[?#]/.test(address)) {
    return 'must be "mailto:" and one address, without "?" or "#" parts; within an address write them as "%3F" and "%23"';
  }
  for (const character of address) {
    if (/[A-Za-z0-9\-._~:/[\]@$&'()*+=%]/.test(character)) continue;
    if (/\s/.test(character))
      return `has whitespace (${JSON.stringify(character)}), which a URI cannot carry: remove it`;
    const code = character.codePointAt(0) ?? 0;
    if (code > 0x7e) {
      return `has ${JSON.stringify(character)}, which a URI cannot carry: give an international domain in punycode (xn--…), and percent-encode other characters as UTF-8`;
    }
    const encoded = `%${code.toString(16).toUpperCase().padStart(2, "0")}`;
    return `has ${JSON.stringify(character)}, which a URI cannot carry: write it as "${encoded}"`;
  }
  if (/%(?![0-9A-Fa-f]{2})/.test(address)) {
    return 'has a "%" that is not followed by two hex digits: write a "%" within the address as "%25"';
  }
  const at = address.indexOf("@");
  if (at < 0) return `must be "mailto:" and an address such as "dmarc@example.com", not ${shown}`;
  if (address.indexOf("@", at + 1) >= 0) return 'must hold one address, but has more than one "@"';
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local === "") return 'has nothing before "@"';
  let decoded: string;
  try {
    decoded = decodeURIComponent(local);
  } catch {
    return "has a percent-encoding that is not UTF-8 text";
  }
  if (Buffer.byteLength(decoded, "utf8") > 64) {
    return `has a part before "@" of ${Buffer.byteLength(decoded, "utf8")} bytes; an address has at most 64 there`;
  }
  // RFC 5322's dot-atom, or its quoted string (where `,` and `;` may appear, as %2C and %3B).
  const dotAtom = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
  const quotedString = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;
  if (!dotAtom.test(decoded) && !quotedString.test(decoded)) {
    return (
      `has ${quoted(decoded)} before "@", which is not an address's local part: letters, digits, ` +
      "!#$%&'*+-/=?^_`{|}~ and dots (never first, last or two in a row), or a quoted string"
    );
  }
  const domainProblem = domainNameProblem(domain.toLowerCase());
  return domainProblem === undefined ? undefined : `has the domain ${quoted(domain)}, which ${domainProblem}`;
}

function percentProblem(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 100) return undefined;
  const fix =
    typeof value === "string" && /^[0-9]{1,3}$/.test(value) ? `: use ${Number(value)}, a number` : "";
  return `must be a whole number from 0 to 100, not ${described(value)}${fix}`;
}

/** One of a few strings; a known misspelling (wrong case, the tag's own letter) is named with its fix. */
function oneOfProblem(value: unknown, allowed: readonly string[], tagValues: Record<string, string>) {
  if (typeof value === "string" && allowed.includes(value)) return undefined;
  const reason = `must be ${listed(allowed, "or")}, not ${described(value)}`;
  if (typeof value !== "string") return reason;
  const lower = value.trim().toLowerCase();
  const fix =
    allowed.find((name) => name.toLowerCase() === lower) ??
    (Object.hasOwn(tagValues, lower) ? tagValues[lower] : undefined);
  return fix === undefined ? reason : `${reason}: use "${fix}"`;
}

/** How `listProblems` checks one list setting. */
interface ListRule {
  entryProblem: (entry: unknown) => string | undefined;
  /** A good list, shown when the value is not a list. */
  example: string[];
  /** What to do instead of giving an empty list. */
  whenEmpty: string;
}

/** A non-empty list without repeats, each entry checked on its own (`path[i]`). */
function listProblems(value: unknown, path: string, rule: ListRule): CheckFailure[] {
  if (!Array.isArray(value)) {
    // One text where a list belongs, often several values joined by commas: the list they make,
    // when that list would do.
    const entries = typeof value === "string" ? value.split(",").map((entry) => entry.trim()) : [];
    const fix =
      typeof value === "string" &&
      value.length <= 80 &&
      entries.every(
        (entry, index) => rule.entryProblem(entry) === undefined && entries.indexOf(entry) === index,
      )
        ? `: use ${JSON.stringify(entries)}`
        : "";
    const reason = `must be a list such as ${JSON.stringify(rule.example)}, not ${described(value)}${fix}`;
    return [{ property: path, reason }];
  }
  if (value.length === 0) return [{ property: path, reason: `must not be empty: ${rule.whenEmpty}` }];
  const name = path.slice(path.lastIndexOf(".") + 1);
  const problems: CheckFailure[] = [];
  // By index, so that holes (a JavaScript list may have them) are entries too.
  for (let index = 0; index < value.length; index++) {
    const entry: unknown = value[index];
    const reason = rule.entryProblem(entry);
    const first = value.indexOf(entry);
    if (reason !== undefined) problems.push({ property: `${path}[${index}]`, reason });
    else if (first !== index)
      problems.push({ property: `${path}[${index}]`, reason: `repeats ${name}[${first}]` });
  }
  return problems;
}

function unknownSettingReason(key: string): string {
  const settings = Object.keys(SETTINGS);
  const known = `the settings are ${settings.join(", ")}`;
  const lower = key.toLowerCase();
  if (lower === "v" || lower === "version")
    return `is not a setting: the record always starts with v=DMARC1; ${known}`;
  const byTag = Object.entries(SETTINGS).find(([, tag]) => tag === lower)?.[0];
  if (byTag !== undefined) return `is not a setting: the "${lower}" tag is set by ${byTag}`;
  // A typo (`polciy`), or a longer or shorter form of the name (`percentage`, `failureReport`).
  const near = settings.find((setting) => {
    const name = setting.toLowerCase();
    const prefix =
      Math.min(name.length, lower.length) >= 4 && (name.startsWith(lower) || lower.startsWith(name));
    return prefix || editDistance(name, lower) <= (lower.length > 4 ? 2 : 1);
  });
  if (near !== undefined) return `is not a DMARC setting: did you mean ${near}?`;
  return `is not a DMARC setting; ${known}`;
}

/** Edits (insert, delete, substitute, swap two neighbours) from one text to the other. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
      }
    }
  }
  return rows[a.length][b.length];
}

/** The error `dmarcRecordContent` throws: the problems in its message and as `problems`. */
function dmarcSettingsError(problems: CheckFailure[]): Error & { problems: CheckFailure[] } {
  const lines = problems.map((problem) => `  ${problem.property}: ${problem.reason}`);
  return Object.assign(new Error(`DMARC settings are not valid:\n${lines.join("\n")}`), { problems });
}

function absent(value: unknown): boolean {
  return value === undefined || value === null;
}

/** `dmarc.policy`, or `dmarc["odd key"]` for a key that is not a plain name. */
function propertyPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** `"none", "quarantine" or "reject"`. */
function listed(values: readonly string[], conjunction: string): string {
  const quotedValues = values.map((value) => `"${value}"`);
  return `${quotedValues.slice(0, -1).join(", ")} ${conjunction} ${quotedValues[quotedValues.length - 1]}`;
}

/** A text as a reason shows it: quoted, cut at 80 characters. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/** describeValue, plus the values it does not expect (a function would print its source). */
function described(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return "a symbol";
  return describeValue(value);
}
