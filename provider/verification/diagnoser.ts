import type { DomainCheck } from "../client";
import type { CheckName } from "../inputs";
import type { Diagnosis, DiagnosisFacts } from "./diagnosis-facts";

/**
 * The seam between a wait (or the doctor command) and the diagnosis: what a `Diagnoser` takes and
 * returns. `checkDiagnoser` makes one over DNS; the wait, the report and the doctor use these.
 */

/** A failing check's facts and case. */
export interface CheckDiagnosis {
  facts: DiagnosisFacts;
  diagnosis: Diagnosis;
}

/** The diagnoses of the failing checks that have an expected record. */
export type CheckDiagnoses = Partial<Record<CheckName, CheckDiagnosis>>;

/** What one call of a `Diagnoser` may reuse or add. */
export interface DiagnoseOptions {
  /**
   * Facts already gathered this poll: their DNS answers are reused (no query is sent again), only
   * the service's status is taken anew. The wait passes them for the failure's final diagnosis.
   * @default none: DNS is asked
   */
  known?: CheckDiagnoses;
  /**
   * Ask for the zone's records too (Cloudflare API requests, which are rate-limited account-wide):
   * the wait asks once, for the failure's final diagnosis, never per poll. @default false
   */
  zone?: boolean;
  /**
   * How long the whole gather (every query of every check) may take; past it the call rejects,
   * which a DNS-first wait counts as "DNS cannot tell". @default no bound beyond each query's
   */
  timeoutMs?: number;
  /**
   * Ask the authoritative nameservers only (a DNS-first poll: what decides whether to ask the
   * service), leaving the resolver, the doubled name and SPF's lookups to the failure's diagnosis.
   * @default false
   */
  brief?: boolean;
}

/** Diagnoses the failing checks (`checkDiagnoser`: over DNS); `result` undefined: not checked yet. */
export type Diagnoser = (
  result: DomainCheck | undefined,
  failing: readonly CheckName[],
  options?: DiagnoseOptions,
) => Promise<CheckDiagnoses>;
