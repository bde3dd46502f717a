import { unquoteTxt } from "../dns/txt";
import { describe } from "./diagnosis";
import { Diagnosis, DiagnosisFacts, sameName } from "./diagnosis-facts";

/**
 * A diagnosis for people, beneath the check table: the case, the expected record, what the zone
 * and each server hold, and what to do, every line within 80 columns (a terminal, a CI log).
 * Long values (DKIM keys) keep their start and end, where two keys differ visibly.
 */

/** Lines are cut to this many columns. */
export const TEXT_COLUMNS = 80;

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

/** A line cut to `TEXT_COLUMNS`, its middle replaced by `…` (the end of a key tells keys apart). */
export function cutToColumns(line: string, columns = TEXT_COLUMNS): string {
  if ([...line].length <= columns) return line;
  const characters = [...line];
  const tail = 12;
  return `${characters.slice(0, columns - tail - 1).join("")}…${characters.slice(-tail).join("")}`;
}

/** Text wrapped at word boundaries to `TEXT_COLUMNS`, each line indented; a word longer than a line is cut. */
export function wrap(text: string, indent: string, columns = TEXT_COLUMNS): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (current && indent.length + current.length + 1 + word.length > columns) {
      lines.push(cutToColumns(indent + current, columns));
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  if (current) lines.push(cutToColumns(indent + current, columns));
  return lines;
}
