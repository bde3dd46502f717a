import type { DomainCheck } from "../client";
import type { CheckName } from "../inputs";
import type { CheckDiagnoses } from "./diagnosis-facts";
import type { ReceiversJudgement } from "../receivers/judge";
import { CASE_TITLES, checkTable, CheckRow, diagnosisSection } from "./report-text";

/** What a wait for the checks ended with (`waitForChecks`), which the reports describe. */
export interface WaitOutcome {
  /** The last check result; undefined when the service answered no check at all. */
  result?: DomainCheck;
  verified: boolean;
  /** Polls made: each asked the service, or with `dnsFirst` DNS, or both. */
  polls: number;
  /** Check requests made of the service (`polls` without `dnsFirst`). */
  serviceChecks: number;
  /** The last error that counted as "not yet", when the last poll failed. */
  lastError?: Error;
  /** Why each failing check fails, when the wait was given a `diagnose` and it answered. */
  diagnoses?: CheckDiagnoses;
  /** Why the diagnosis could not be made, when it failed (the failure stands without it). */
  diagnosisError?: Error;
  /** Receivers' judgement, when the service passed and the wait was given `receivers`. */
  receivers?: ReceiversJudgement;
  /** Whether receivers accept the mail: false, they reject it; undefined, not judged. */
  receiversAccepted?: boolean;
  /** Why receivers could not be judged. */
  receiversError?: Error;
}

/** How each check appears to a person, and where its status and error are in a check result. */
export const CHECKS: Record<
  CheckName,
  { label: string; status: keyof DomainCheck; error: keyof DomainCheck }
> = {
  spf: { label: "SPF", status: "spfStatus", error: "spfError" },
  dkim: { label: "DKIM", status: "dkimStatus", error: "dkimError" },
  mx: { label: "MX", status: "mxStatus", error: "mxError" },
  returnPath: { label: "Return path", status: "returnPathStatus", error: "returnPathError" },
};

/** A result with no check run (every status and error null), as before a domain's first check. */
export function notChecked(): DomainCheck {
  const fields = Object.values(CHECKS).flatMap(({ status, error }) => [status, error]);
  return Object.fromEntries(fields.map((field) => [field, null])) as unknown as DomainCheck;
}

/** The requested checks that are not OK yet. */
export function failingChecks(result: DomainCheck, checks: readonly CheckName[]): CheckName[] {
  return checks.filter((check) => result[CHECKS[check].status] !== "OK");
}

/**
 * `DKIM (Invalid), MX (Missing)`: what a progress line says is still failing; with diagnoses,
 * each check's case too: `DKIM (Invalid; exists with another value)`.
 */
export function describeFailing(
  result: DomainCheck,
  checks: readonly CheckName[],
  diagnoses: CheckDiagnoses = {},
): string {
  const described = failingChecks(result, checks).flatMap((check) => {
    const found = diagnoses[check];
    const status = result[CHECKS[check].status] as string | null;
    const title = found ? CASE_TITLES[found.diagnosis.case] : undefined;
    // Before the service's first check (a DNS-first wait), DNS is all there is to tell: a record
    // it serves is not waited for there, and the others are told by what DNS serves.
    if (status === null && found?.diagnosis.case === "ok") return [];
    if (status === null && title) return [`${CHECKS[check].label} (${title})`];
    return [
      `${CHECKS[check].label} (${title ? `${status ?? "not checked"}; ${title}` : (status ?? "not checked")})`,
    ];
  });
  return described.length > 0 ? described.join(", ") : "the service's check (DNS serves every record)";
}

/** The check table's rows (report-text.ts `checkTable`): each requested check as the service answered it. */
export function checkRows(result: DomainCheck | undefined, checks: readonly CheckName[]): CheckRow[] {
  return checks.map((check) => ({
    label: CHECKS[check].label,
    status: result ? (result[CHECKS[check].status] as string | null) : null,
    serviceSays: result ? (result[CHECKS[check].error] as string | null) : null,
  }));
}

/** The diagnosis beneath the table, with a line break after it; empty without one. */
function diagnosisText(
  checks: readonly CheckName[],
  outcome: Pick<WaitOutcome, "diagnoses" | "diagnosisError">,
): string {
  const diagnosed = checks.flatMap((check) => {
    const found = outcome.diagnoses?.[check];
    return found ? [{ label: CHECKS[check].label, ...found }] : [];
  });
  const lines = diagnosisSection(diagnosed, outcome.diagnosisError?.message);
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

/** `4m05s`, `12s`: time left, for progress lines. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${String(seconds % 60).padStart(2, "0")}s` : `${seconds}s`;
}

/**
 * Why a wait that ran out of time failed, for the error `pulumi up` shows. When the service
 * answered no check at all, nothing is known about the records, so the message is about reaching
 * the service (how many tries, the last error) and says nothing about fixing records.
 */
export function timeoutMessage(
  domain: string,
  timeoutSeconds: number,
  checks: readonly CheckName[],
  outcome: Pick<WaitOutcome, "result" | "polls" | "lastError" | "diagnoses" | "diagnosisError"> &
    Partial<Pick<WaitOutcome, "serviceChecks">>,
): string {
  const { result, lastError } = outcome;
  // A DNS-first wait polls more often than it asks the service: the checks are what it asked.
  const polls = outcome.serviceChecks ?? outcome.polls;
  if (!result) {
    return (
      `${domain} could not be verified: the email service answered none of ${polls} ${polls === 1 ? "check" : "checks"} in ${timeoutSeconds} s.\n` +
      (lastError ? `The last one failed: ${lastError.message}\n` : "") +
      "Nothing is known about the DNS records yet, so there is nothing to fix in them: check that the service " +
      "is reachable at its base URL (`emailDelivery:baseUrl`), then run `pulumi up` again: the wait resumes."
    );
  }
  const failing = failingChecks(result, checks);
  return (
    `${domain} did not pass verification within ${timeoutSeconds} s ` +
    `(${polls} ${polls === 1 ? "check" : "checks"}; failing: ${failing.join(", ") || "none reported"}):\n` +
    `${checkTable(checkRows(result, checks)).join("\n")}\n` +
    diagnosisText(failing, outcome) +
    (lastError ? `The last check failed: ${lastError.message}\n` : "") +
    "Fix the records named above (the domain's `dnsRecords` output lists what to publish) and run `pulumi up` again: the wait resumes."
  );
}
