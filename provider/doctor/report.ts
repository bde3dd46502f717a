import type { DomainCheck } from "../client";
import { CHECK_NAMES, type CheckName } from "../inputs/verification-inputs";
import type { DiagnosisCase, DiagnosisFacts } from "../verification/diagnosis-facts";
import {
  checkTable,
  cutToColumns,
  diagnosisSection,
  printable,
  TEXT_COLUMNS,
  wrap,
} from "../verification/report-text";
import { checkRows, CHECKS } from "../verification/report";
import type { ReceiverFinding } from "../receivers/findings";
import { receiversAccept, type ReceiversJudgement } from "../receivers/judge";
import { judgedChecks } from "../verification/receivers-step";
import { findingLines } from "../verification/receivers-report";
import { printableFacts } from "./printing";

/**
 * What the doctor found, as data (the `--json` document) and as a table for people. Pure. The
 * table escapes what others wrote (printing.ts says why) before it lays it out.
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
 * What DNS serves for one failing check, as provider/verification's diagnosis found it: the case, one
 * line saying what is wrong, one saying what to do, and the facts (the expected record, each
 * nameserver's answer, the resolver's) as plain JSON. `--json` prints it as is.
 */
export interface DoctorDiagnosis {
  check: CheckName;
  case: DiagnosisCase;
  summary: string;
  action: string;
  facts: DiagnosisFacts;
  /**
   * The check's records that not every nameserver asked serves, whole (the table cuts a long
   * value to 80 columns, and names one MX host): what to publish or wait for.
   */
  notServed: DoctorRecord[];
}

/** A record as the records file gives it (TXT unquoted), with its MX priority. */
export interface DoctorRecord {
  type: string;
  name: string;
  content: string;
  priority?: number;
}

/** Receivers' judgement of the domain (with `--records`), or why it could not be made. */
export type ReceiversReport = { judgement: ReceiversJudgement } | { error: string };

/** What receivers decided, as the `--json` document holds it. */
export interface DoctorReceivers {
  spf: ReceiversJudgement["spf"];
  dkim: ReceiversJudgement["dkim"];
  dmarc: ReceiversJudgement["dmarc"];
  /** False: receivers would not accept the mail; null: DNS did not let them judge. */
  accepted: boolean | null;
  findings: ReceiverFinding[];
  /** Why no judgement could be made. */
  error?: string;
}

/** What the doctor found: the `--json` document, and what `doctorTable` words. */
export interface DoctorReport {
  domain: string;
  /** False when the service has no domain of that name on the key's server. */
  found: boolean;
  checks: DoctorCheck[];
  diagnosis: DoctorDiagnosis[];
  /** Why the failing checks could not be diagnosed (a DNS server refused), when they could not. */
  diagnosisError?: string;
  /** Receivers' judgement, when `--records` was given. */
  receivers?: DoctorReceivers;
  /** Every check the service runs passed, and receivers accept the mail when judged: exit 0. */
  passed: boolean;
}

/** The report of the service's answer (undefined: no such domain), the diagnosis and the judgement. */
export function doctorReport(
  domain: string,
  result: DomainCheck | undefined,
  diagnosis: DoctorDiagnosis[] = [],
  diagnosisError?: string,
  judged?: ReceiversReport,
): DoctorReport {
  const checks = checkRows(result, CHECK_NAMES).map((row, index): DoctorCheck => ({
    check: CHECK_NAMES[index],
    ...row,
    passed: row.status === "OK",
  }));
  const receivers = judged && doctorReceivers(judged);
  return {
    domain,
    found: result !== undefined,
    checks,
    diagnosis,
    ...(diagnosisError === undefined ? {} : { diagnosisError }),
    ...(receivers ? { receivers } : {}),
    passed:
      result !== undefined &&
      checks.every((check) => check.passed) &&
      (!receivers || receivers.accepted === true),
  };
}

function doctorReceivers(judged: ReceiversReport): DoctorReceivers {
  if ("error" in judged)
    return {
      spf: "unknown",
      dkim: "unknown",
      dmarc: "unknown",
      accepted: null,
      findings: [],
      error: judged.error,
    };
  const { judgement } = judged;
  return {
    spf: judgement.spf,
    dkim: judgement.dkim,
    dmarc: judgement.dmarc,
    accepted: receiversAccept(judgement, judgedChecks(CHECK_NAMES)) ?? null,
    findings: judgement.findings,
  };
}

/** The width the table fits: an 80-column terminal. */
export const TABLE_WIDTH = TEXT_COLUMNS;

/**
 * The report for people: a line saying how it went, then one row per check, the service's text
 * wrapped in its own column so no line is wider than `width`; the diagnosis and receivers'
 * findings; last, the records not served everywhere, whole.
 */
export function doctorTable(report: DoctorReport, width = TABLE_WIDTH): string {
  const domain = printable(report.domain);
  if (!report.found)
    return wrap(
      `${domain}: the service has no domain of that name on the server this API key belongs to.`,
      "",
      width,
    ).join("\n");
  const failing = report.checks.filter((check) => !check.passed);
  const receivers = report.receivers;
  const verdict = !receivers
    ? ""
    : receivers.accepted === true
      ? "; receivers accept its mail"
      : receivers.accepted === false
        ? `; receivers would not accept its mail`
        : "; receivers could not be judged";
  const head = failing.length
    ? `${domain}: ${failing.length} of ${report.checks.length} checks failing${verdict}`
    : `${domain}: all ${report.checks.length} checks pass${verdict}`;
  // Escaped before they are laid out, so the columns are measured as they will be shown.
  const rows = report.checks.map((check) => ({
    label: check.label,
    status: check.status === null ? null : printable(check.status),
    serviceSays: check.serviceSays === null ? null : printable(check.serviceSays),
  }));
  // A long domain name wraps too (a name has no spaces: `wrap` splits it at the width).
  const lines = [...wrap(head, "", width), "", ...checkTable(rows, width)];
  const diagnosed = report.diagnosis.map(({ check, facts, summary, action, case: found }) => ({
    label: CHECKS[check].label,
    facts: printableFacts(facts),
    diagnosis: { case: found, summary: printable(summary), action: printable(action) },
  }));
  const diagnosis = diagnosisSection(
    diagnosed,
    report.diagnosisError === undefined ? undefined : printable(report.diagnosisError),
  );
  if (diagnosis.length > 0) lines.push("", ...diagnosis);
  if (receivers) {
    lines.push(
      "",
      `${RECEIVERS_HEADING} SPF ${receivers.spf}, DKIM ${receivers.dkim}, DMARC ${receivers.dmarc}`,
    );
    lines.push(...findingLines(receivers.findings));
    if (receivers.error)
      lines.push(...wrap(`Receivers could not be judged: ${printable(receivers.error)}`, "  ", width));
  }
  // What is left unescaped (values the diagnosis quotes with JSON.stringify, which leaves C1 and
  // bidi controls as they are) is escaped here; a line that grows past the width is cut again.
  const table = lines.map((line) => {
    const shown = printable(line);
    return shown === line ? line : cutToColumns(shown, width);
  });
  return [...table, ...notServedLines(report.diagnosis)].join("\n");
}

/**
 * The records not served everywhere, each value whole on a line of its own, unindented and never
 * wrapped or cut (the only lines past 80 columns): a triple-click copies it as the zone wants it.
 */
function notServedLines(diagnosis: readonly DoctorDiagnosis[]): string[] {
  const rows = diagnosis.flatMap(({ check, notServed }) => notServed.map((record) => ({ check, record })));
  if (rows.length === 0) return [];
  return [
    "",
    NOT_SERVED_HEADING,
    ...rows.flatMap(({ check, record }) => [
      printable(
        `  ${CHECKS[check].label}: ${record.type.toUpperCase()} ${record.name}` +
          (record.priority === undefined ? "" : `, priority ${record.priority}`),
      ),
      printable(record.content),
    ]),
  ];
}

/** Above the records not served everywhere, the table's last lines. */
export const NOT_SERVED_HEADING = "Not served by every nameserver, each value whole on the line below it:";

/** Before receivers' verdicts and findings. */
export const RECEIVERS_HEADING = "What receivers decide:";
