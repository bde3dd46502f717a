import type { DnsRecord, DomainCheck } from "../client";
import type { CheckName } from "../inputs/verification-inputs";
import { checkDiagnoser, expectedRecords } from "../verification/check-diagnosis";
import type { ReceiversJudgement } from "../receivers/judge";
import { receiversJudge } from "../verification/receivers-judge";
import type { DoctorDiagnosis } from "./report";

/**
 * The doctor's one call into src/verification's diagnosis (`checkDiagnoser`), and the mapping of
 * its answer to the report's rows: when the diagnoser's signature changes, this file is the one to
 * follow it. The doctor publishes nothing and has no Cloudflare token, so only DNS is asked, never
 * the zone.
 */

/** What the doctor hands the diagnosis. */
export interface DiagnosisRequest {
  /** The service's answer. */
  result: DomainCheck;
  failing: readonly CheckName[];
  /** The records the service asked for (`--records`). */
  records: readonly DnsRecord[];
  /**
   * Servers to ask as the zone's nameservers (`--dns`). @default the zone's own, found through
   * this machine's resolver, which is asked too
   */
  nameservers?: readonly string[];
}

/** One row per failing check that has an expected record, in the order of `failing`. */
export async function diagnoseChecks(request: DiagnosisRequest): Promise<DoctorDiagnosis[]> {
  const diagnoser = checkDiagnoser({
    expected: expectedRecords(request.records),
    dns: request.nameservers ? { nameservers: request.nameservers } : {},
  });
  const found = await diagnoser(request.result, request.failing);
  return request.failing.flatMap((check) => {
    const row = found[check];
    return row ? [{ check, ...row.diagnosis, facts: row.facts }] : [];
  });
}

/**
 * Receivers' judgement of the domain (`receiversJudge`, as the verification's last step makes it),
 * made whether or not the service's checks pass: the service's checks are a minimum. Undefined when
 * the records hold nothing to judge by.
 */
export async function judgeDomain(
  request: Pick<DiagnosisRequest, "records" | "nameservers">,
): Promise<ReceiversJudgement | undefined> {
  const judge = receiversJudge(
    request.records,
    request.nameservers ? { nameservers: request.nameservers } : {},
  );
  return judge?.();
}
