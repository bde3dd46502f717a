import type { DnsAnswer } from "../dns/dns-query";
import { missingSpfIncludes, serviceSpfIncludes } from "../dns/spf";
import { isSpfRecord } from "../dns/spf-record";
import { unquoteTxt } from "../dns/txt";
import { sameContent } from "../dns/zone-records";
import { sameName, type ExpectedRecord, type ServerAnswer } from "./diagnosis-facts";

/**
 * Whether what a server answers is the record the service's check looks for, compared as the
 * service compares (a DKIM record trimmed with its final `;`, an SPF record by its include): what
 * the diagnosis and a DNS-first wait read from each answer.
 */

/**
 * Whether a served value is the expected record. For SPF, a record that already includes every
 * `include:` of the service's counts too: the `Domain` merges the service's include into a record
 * the zone already has instead of publishing a second one (`dns/spf.ts`).
 */
export function servesExpected(expected: ExpectedRecord, value: string): boolean {
  const text = expected.type.toUpperCase() === "TXT" ? unquoteTxt(value) : value;
  if (sameContent(expected.type, expected.value, text)) return true;
  // Postal compares a DKIM record trimmed and with its final ";" added if absent.
  if (expected.purpose === "dkim") return dkimForm(text) === dkimForm(expected.value);
  if (expected.purpose !== "spf" || !isSpfRecord(text)) return false;
  try {
    const includes = serviceSpfIncludes(expected.value);
    return includes.length > 0 && missingSpfIncludes(text, includes).length === 0;
  } catch {
    return false; // a record that does not parse is not ours
  }
}

function dkimForm(value: string): string {
  const trimmed = value.trim();
  return trimmed.endsWith(";") ? trimmed : `${trimmed};`;
}

/**
 * Whether one server's answer is what the check wants: the expected value among its values, and
 * for DKIM the only value (Postal's check refuses more than one record at the name, first).
 */
export function answerServes(expected: ExpectedRecord, answer: DnsAnswer): boolean {
  const values = valuesOf(answer);
  if (expected.purpose === "dkim" && values.length > 1) return false;
  return values.some((value) => servesExpected(expected, value));
}

/** The values of an answer (none for NXDOMAIN or an error). */
export function valuesOf(answer: DnsAnswer): string[] {
  return "values" in answer ? answer.values : [];
}

/** The service's include as the served SPF record writes it, when only its letters differ. */
export function includeSpelling(
  expected: ExpectedRecord,
  servers: readonly ServerAnswer[],
): { written: string; include: string } | undefined {
  for (const include of serviceSpfIncludes(expected.value)) {
    for (const server of servers) {
      for (const value of valuesOf(server.answer).map(unquoteTxt).filter(isSpfRecord)) {
        const written = value
          .split(" ")
          .find(
            (term) => /^[+]?include:/i.test(term) && sameName(term.slice(term.indexOf(":") + 1), include),
          );
        if (written && !written.includes(`include:${include}`)) return { written, include };
      }
    }
  }
  return undefined;
}
