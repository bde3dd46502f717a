import type { DomainCheck } from "../client";
import { CHECK_NAMES, type CheckName } from "../inputs/verification-inputs";
import type { DiagnosisCase, DiagnosisFacts } from "../verification/diagnosis-facts";
import { cutToColumns, diagnosisLines } from "../verification/diagnosis-text";
import { CHECKS } from "../verification/report";
import type { ReceiverFinding } from "../receivers/findings";
import { receiversAccept, type ReceiversJudgement } from "../receivers/judge";
import { judgedChecks } from "../verification/receivers-step";
import { findingLines, printable } from "../verification/receivers-report";
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
export const TABLE_WIDTH = 80;

/** The widest status shown whole; the service's are a word (`OK`, `Missing`, `Invalid`). */
const STATUS_COLUMNS = 20;

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
  const header = ["check", "status", "service says"];
  // Escaped before they are laid out, so the columns are measured as they will be shown; a status
  // is one word (`Missing`), so one that is not is cut rather than squeeze the service's text.
  const rows = report.checks.map((check) => [
    check.label,
    cutToColumns(printable(check.status ?? "not run"), STATUS_COLUMNS),
    printable(check.serviceSays ?? ""),
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
  for (const { check, facts, summary, action, case: found } of report.diagnosis)
    lines.push(
      ...diagnosisLines(CHECKS[check].label, printableFacts(facts), {
        case: found,
        summary: printable(summary),
        action: printable(action),
      }),
    );
  if (report.diagnosisError)
    lines.push(
      ...wrap(`The records could not be diagnosed: ${printable(report.diagnosisError)}`, width - 2).map(
        indented,
      ),
    );
  if (receivers) {
    lines.push(
      "",
      `${RECEIVERS_HEADING} SPF ${receivers.spf}, DKIM ${receivers.dkim}, DMARC ${receivers.dmarc}`,
    );
    lines.push(...findingLines(receivers.findings));
    if (receivers.error)
      lines.push(
        ...wrap(`Receivers could not be judged: ${printable(receivers.error)}`, width - 2).map(indented),
      );
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
