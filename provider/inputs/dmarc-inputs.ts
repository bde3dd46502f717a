/**
 * The checks of DMARC settings (`dmarcProblems`): every bad setting named by its path, with a
 * reason a person can act on, so a mistake fails `pulumi preview`. Input checks like the others
 * in this folder; what the settings mean and how they are written is `dns/dmarc*.ts`.
 */
import { DMARC_ALIGNMENTS, DMARC_FAILURE_REPORT_OPTIONS, DMARC_POLICIES, SETTINGS } from "../dns/dmarc-args";
import { type CheckFailure, describeValue } from "./check-inputs";
import { domainNameProblem } from "./names";

/** The largest size limit a report URI may carry: the number must fit 64 bits unsigned (§6.4). */
const MAX_SIZE_LIMIT = 18446744073709551615n;

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

// ---- the checks -----------------------------------------------------------------------------------

/**
 * Why a report URI is refused, or undefined when it is a `mailto:` URI with one address and an
 * optional size limit (RFC 7489 §6.2, §6.4; RFC 6068 for `mailto:`).
 */
export function reportUriProblem(value: unknown): string | undefined {
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
export class DmarcSettingsError extends Error {
  constructor(readonly problems: CheckFailure[]) {
    super(`DMARC settings are not valid:\n${problems.map((p) => `  ${p.property}: ${p.reason}`).join("\n")}`);
    this.name = "DmarcSettingsError";
  }
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
