import type { DomainCheck } from "../client";
import { CHECK_NAMES, type CheckName } from "../inputs/verification-inputs";
import type { DiagnosisCase, DiagnosisFacts } from "../verification/diagnosis";
import { diagnosisLines } from "../verification/diagnosis-text";
import { CHECKS } from "../verification/report";

/**
 * What the doctor found, as data (the `--json` document) and as a table for people. Pure.
 */

/** One of the service's checks as the service answered it. */
export interface DoctorCheck {
  check: CheckName;
  /** `SPF`, `Return path`, … */
  label: string;
  /** The service's status (`OK`, `Missing`, `Invalid`, …); null when it ran none. */
  status: string | null;
  /** The service's own text; null when it gave none. */
  serviceSays: string | null;
  passed: boolean;
}

/**
 * What DNS serves for one failing check, as src/verification's diagnosis found it: the case, one
 * line saying what is wrong, one saying what to do, and the facts (the expected record, each
 * nameserver's answer, the resolver's) as plain JSON. `--json` prints it as is.
 */
export interface DoctorDiagnosis {
  check: CheckName;
  case: DiagnosisCase;
  summary: string;
  action: string;
  facts: DiagnosisFacts;
}

export interface DoctorReport {
  domain: string;
  /** False when the service has no domain of that name on the key's server. */
  found: boolean;
  checks: DoctorCheck[];
  diagnosis: DoctorDiagnosis[];
  /** Why the failing checks could not be diagnosed (a DNS server refused), when they could not. */
  diagnosisError?: string;
  /** Every check the service runs passed: the exit code is 0. */
  passed: boolean;
}

export function doctorReport(
  domain: string,
  result: DomainCheck | undefined,
  diagnosis: DoctorDiagnosis[] = [],
  diagnosisError?: string,
): DoctorReport {
  const checks = CHECK_NAMES.map((check): DoctorCheck => {
    const status = result ? (result[CHECKS[check].status] as string | null) : null;
    return {
      check,
      label: CHECKS[check].label,
      status,
      serviceSays: result ? (result[CHECKS[check].error] as string | null) : null,
      passed: status === "OK",
    };
  });
  return {
    domain,
    found: result !== undefined,
    checks,
    diagnosis,
    ...(diagnosisError === undefined ? {} : { diagnosisError }),
    passed: result !== undefined && checks.every((check) => check.passed),
  };
}

/** The width the table fits: an 80-column terminal. */
export const TABLE_WIDTH = 80;

/**
 * The report for people: a line saying how it went, then one row per check, the service's text
 * wrapped in its own column so no line is wider than `width`.
 */
export function doctorTable(report: DoctorReport, width = TABLE_WIDTH): string {
  if (!report.found)
    return wrap(
      `${report.domain}: the service has no domain of that name on the server this API key belongs to.`,
      width,
    ).join("\n");
  const failing = report.checks.filter((check) => !check.passed);
  const head = failing.length
    ? `${report.domain}: ${failing.length} of ${report.checks.length} checks failing`
    : `${report.domain}: all ${report.checks.length} checks pass`;
  const header = ["check", "status", "service says"];
  const rows = report.checks.map((check) => [
    check.label,
    check.status ?? "not run",
    check.serviceSays ?? "",
  ]);
  const widths = [0, 1].map((column) =>
    Math.max(header[column].length, ...rows.map((row) => row[column].length)),
  );
  const indent = 2 + widths[0] + 3 + widths[1] + 3;
  const textWidth = Math.max(20, width - indent);
  // A long domain name wraps too (a name has no spaces: `wrap` cuts it at the width).
  const lines = [...wrap(head, width), ""];
  for (const cells of [header, ...rows]) {
    const text = wrap(cells[2], textWidth);
    const first = `  ${cells[0].padEnd(widths[0])}   ${cells[1].padEnd(widths[1])}   ${text[0] ?? ""}`;
    lines.push(first.trimEnd(), ...text.slice(1).map((line) => " ".repeat(indent) + line));
  }
  if (report.diagnosis.length > 0 || report.diagnosisError) lines.push("", DIAGNOSIS_HEADING);
  for (const { check, facts, ...diagnosis } of report.diagnosis)
    lines.push(...diagnosisLines(CHECKS[check].label, facts, diagnosis));
  if (report.diagnosisError)
    lines.push(
      ...wrap(`The records could not be diagnosed: ${report.diagnosisError}`, width - 2).map(indented),
    );
  return lines.join("\n");
}

/** Above the diagnosis rows, as under a verification's failure. */
export const DIAGNOSIS_HEADING = "What DNS serves, check by check:";

const indented = (line: string) => `  ${line}`;

/** Words into lines of at most `width` characters; a word longer than that is cut. */
export function wrap(text: string, width: number): string[] {
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
  return lines;
}
