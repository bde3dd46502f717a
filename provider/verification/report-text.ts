import { unquoteTxt } from "../dns/txt";
import { describe } from "./diagnosis";
import { Diagnosis, DiagnosisFacts, sameName } from "./diagnosis-facts";

/**
 * The one renderer of what people read about a domain's checks, wherever they read it: the
 * verification's failure in `pulumi up`, its warnings, and the doctor's table. The check table,
 * each failing check's diagnosis beneath it, and the lines receivers' findings are made of, every
 * line within 80 columns (a terminal, a CI log). Long values (DKIM keys) keep their start and end,
 * where two keys differ visibly. Pure.
 */

/** Lines are cut to this many columns. */
export const TEXT_COLUMNS = 80;

/** Text with C0/C1 controls, DEL and bidi controls (marks included) written as `\u…` escapes. */
export function printable(text: string): string {
  return text.replace(
    // Control characters are what this matches: the rule guards against them matched by accident.
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A line cut to `columns`, its middle replaced by `…` (the end of a key tells keys apart). */
export function cutToColumns(line: string, columns = TEXT_COLUMNS): string {
  if ([...line].length <= columns) return line;
  const characters = [...line];
  const tail = 12;
  return `${characters.slice(0, columns - tail - 1).join("")}…${characters.slice(-tail).join("")}`;
}

/**
 * Words into lines of at most `columns` characters, `indent` included; a word longer than a line
 * is split across lines, never cut short (a name or a key is copied from here).
 */
export function wrap(text: string, indent = "", columns = TEXT_COLUMNS): string[] {
  const width = Math.max(1, columns - indent.length);
  const lines: string[] = [];
  let line = "";
  for (let word of text.split(/\s+/).filter(Boolean)) {
    while (word.length > width) {
      if (line) lines.push(line);
      line = "";
      lines.push(word.slice(0, width));
      word = word.slice(width);
    }
    if (!line) line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines.map((wrapped) => indent + wrapped);
}

/** One row of the check table. */
export interface CheckRow {
  /** `SPF`, `Return path`, … */
  label: string;
  /** The service's status (`OK`, `Missing`, `Invalid`, …); null when it ran none. */
  status: string | null;
  /** The service's own text; null when it gave none. */
  serviceSays: string | null;
}

/** The widest status shown whole; the service's are a word (`OK`, `Missing`, `Invalid`). */
const STATUS_COLUMNS = 20;

/**
 * A row per check, the service's text wrapped in its own column so that no line is wider than
 * `columns`, e.g.
 *
 *   check        status    service says
 *   SPF          OK
 *   DKIM         Invalid   The DKIM record at postal-ABCDEF._domainkey.… does not match …
 */
export function checkTable(rows: readonly CheckRow[], columns = TEXT_COLUMNS): string[] {
  // A status is one word (`Missing`): one that is not is cut rather than squeeze the service's text.
  const cells = rows.map((row) => [
    row.label,
    cutToColumns(row.status ?? "not checked", STATUS_COLUMNS),
    row.serviceSays ?? "",
  ]);
  const header = ["check", "status", "service says"];
  const widths = [0, 1].map((column) =>
    Math.max(header[column].length, ...cells.map((row) => row[column].length)),
  );
  const indent = 2 + widths[0] + 3 + widths[1] + 3;
  const textColumns = Math.max(20, columns - indent);
  return [header, ...cells].flatMap(([label, status, says]) => {
    const text = wrap(says, "", textColumns);
    const first = `  ${label.padEnd(widths[0])}   ${status.padEnd(widths[1])}   ${text[0] ?? ""}`;
    return [first.trimEnd(), ...text.slice(1).map((line) => " ".repeat(indent) + line)];
  });
}

/** Above the diagnosis rows, in the verification's failure and the doctor's table. */
export const DIAGNOSIS_HEADING = "What DNS serves, check by check:";

/** One failing check's diagnosis, as `diagnosisSection` lays it out. */
export interface DiagnosedCheck {
  label: string;
  facts: DiagnosisFacts;
  diagnosis: Diagnosis;
}

/**
 * Beneath the check table: the heading, each failing check's diagnosis (`diagnosisLines`), and
 * why there is none when it failed (`error`). Empty when there is neither.
 */
export function diagnosisSection(checks: readonly DiagnosedCheck[], error?: string): string[] {
  const lines = checks.flatMap(({ label, facts, diagnosis }) => diagnosisLines(label, facts, diagnosis));
  if (error !== undefined) lines.push(...wrap(`The records could not be diagnosed: ${error}`, "  "));
  return lines.length > 0 ? [DIAGNOSIS_HEADING, ...lines] : [];
}

/**
 * `DKIM: other-value — …` then the facts, indented:
 *
 *   DKIM: exists with another value
 *     TXT postal-ab._domainkey.example.com exists with another DKIM key (an old one?): …
 *     expected   "v=DKIM1; t=s; h=sha256; p=MIGfMA0GCSqGSIb3DQEBAQUAA4…wIDAQAB"
 *     zone       "v=DKIM1; t=s; h=sha256; p=MIGfMA0GCSqGSIb3DQEBAQUAA4…OLDKEYAB"
 *     ns1…       "v=DKIM1; …"
 *     to do      Replace its content with the expected value.
 */
export function diagnosisLines(label: string, facts: DiagnosisFacts, diagnosis: Diagnosis): string[] {
  const lines = [`  ${label}: ${CASE_TITLES[diagnosis.case]}`];
  const row = (key: string, value: string) => lines.push(cutToColumns(`    ${key.padEnd(10)} ${value}`));
  lines.push(...wrap(diagnosis.summary, "    "));
  row("expected", `${facts.expected.type.toUpperCase()} ${facts.expected.name}`);
  row("", JSON.stringify(facts.expected.value));
  if (facts.zone) {
    const here = facts.zone.records.filter((record) => sameName(record.name, facts.expected.name));
    if (here.length === 0) row("zone", "nothing at this name");
    for (const record of here)
      row(
        "zone",
        `${record.type} ${JSON.stringify(record.type.toUpperCase() === "TXT" ? unquoteTxt(record.content) : record.content)}${record.proxied ? " (proxied)" : ""}`,
      );
  }
  for (const server of facts.authoritative) row("dns", `${server.server}: ${describe(server.answer)}`);
  if (facts.recursive) row("resolver", `${facts.recursive.server}: ${describe(facts.recursive.answer)}`);
  if (diagnosis.action) lines.push(...wrap(`to do: ${diagnosis.action}`, "    "));
  return lines;
}

/** A few words per case, for the heading and progress lines. */
export const CASE_TITLES: Record<Diagnosis["case"], string> = {
  ok: "served as expected",
  "not-published": "not published",
  proxied: "published but proxied",
  "spf-other-record": "another SPF record beside ours",
  "spf-too-many-lookups": "SPF over its lookup limits",
  "other-value": "exists with another value",
  "wrong-name": "published at the wrong name",
  propagating: "still propagating",
  "no-answer": "nameservers do not answer",
  cname: "a CNAME where the record goes",
  wildcard: "only a wildcard serves it",
  "spf-include-spelling": "the include in other letters",
  "service-disagrees": "the service's check disagrees with DNS",
};
