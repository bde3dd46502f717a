import type { DnsRecord, DomainCheck } from "../client";
import { boundedDnsQuery, nodeDnsQuery, onceDnsQuery, type DnsQuery } from "../dns/dns-query";
import type { CheckName } from "../inputs/verification-inputs";
import { CHECK_PURPOSES, checkDiagnoser, expectedRecords } from "../verification/check-diagnosis";
import { sameName, type DiagnosisFacts } from "../verification/diagnosis-facts";
import { DEFAULT_DNS_TIMEOUT_MS } from "../verification/dns-facts";
import { answerServes } from "../verification/serves";
import type { ReceiversJudgement } from "../receivers/judge";
import { receiversJudge } from "../verification/receivers-judge";
import type { DoctorDiagnosis, DoctorRecord, ReceiversReport } from "./report";

/**
 * The doctor's one call into provider/verification's diagnosis (`checkDiagnoser`) and receivers'
 * judgement (`receiversJudge`), and the mapping of their answers to the report's rows: when their
 * signatures change, this file is the one to follow them. The doctor publishes nothing and has no
 * Cloudflare token, so only DNS is asked, never the zone. Loaded only with `--records` (the bin
 * imports it when needed): the command without them never loads the DNS code.
 */

/** What the doctor hands the diagnosis. */
export interface DiagnosisRequest {
  /** The service's answer. */
  result: DomainCheck;
  failing: readonly CheckName[];
  /** The domain's own records (`--records`, `domainRecords`). */
  records: readonly DnsRecord[];
  /**
   * Servers to ask as the zone's nameservers (`--dns`). @default the zone's own, found through
   * this machine's resolver, which is asked too
   */
  nameservers?: readonly string[];
  /** Where the questions go; share one between the diagnosis and the judgement. @default {@link doctorDnsQuery} */
  query?: DnsQuery;
}

/** Questions in flight at once: a records file's worth of them would otherwise all go at once. */
export const DNS_CONCURRENCY = 16;

/**
 * node:dns as the doctor asks it (`ask`, injected by tests): each question once per run (the
 * diagnosis and the judgement ask many of the same: the zone's NS, the SPF record),
 * {@link DNS_CONCURRENCY} at a time.
 */
export function doctorDnsQuery(ask: DnsQuery = nodeDnsQuery(DEFAULT_DNS_TIMEOUT_MS)): DnsQuery {
  return onceDnsQuery(boundedDnsQuery(ask, DNS_CONCURRENCY));
}

/** One row per failing check that has an expected record, in the order of `failing`. */
export async function diagnoseChecks(request: DiagnosisRequest): Promise<DoctorDiagnosis[]> {
  const given = request.nameservers;
  const diagnoser = checkDiagnoser({
    expected: expectedRecords(request.records),
    dns: { ...(given ? { nameservers: given } : {}), query: request.query ?? doctorDnsQuery() },
  });
  const found = await diagnoser(request.result, request.failing);
  return request.failing.flatMap((check) => {
    const row = found[check];
    if (!row) return [];
    const { diagnosis, facts } = row;
    // The diagnosis speaks of the zone's nameservers and its registrar; servers given with --dns
    // that do not answer are far more likely a typo in the address or the port.
    const action =
      diagnosis.case === "no-answer" && given
        ? `The servers given with --dns (${given.join(", ")}) did not answer: check their addresses and ports.`
        : diagnosis.action;
    return [{ check, ...diagnosis, action, facts, notServed: notServed(check, request.records, facts) }];
  });
}

/**
 * The check's records (both MX hosts, with their priorities) that not every nameserver asked
 * serves, each whole: the diagnosis words one of them, cut to 80 columns.
 */
function notServed(check: CheckName, records: readonly DnsRecord[], facts: DiagnosisFacts): DoctorRecord[] {
  const servers =
    facts.authoritative.length > 0 ? facts.authoritative : facts.recursive ? [facts.recursive] : [];
  return records
    .filter((record) => record.purpose === CHECK_PURPOSES[check])
    .filter((record) => {
      const expected = {
        purpose: CHECK_PURPOSES[check],
        name: record.name,
        type: record.type,
        value: record.content,
      };
      // The facts are of the name and type asked; a record elsewhere cannot be told served.
      const asked =
        sameName(record.name, facts.expected.name) &&
        record.type.toUpperCase() === facts.expected.type.toUpperCase();
      return (
        !asked || servers.length === 0 || !servers.every((server) => answerServes(expected, server.answer))
      );
    })
    .map(({ type, name, content, priority }) => ({
      type,
      name,
      content,
      ...(priority === undefined ? {} : { priority }),
    }));
}

/**
 * Receivers' judgement of the domain (`receiversJudge`, as the verification's last step makes it),
 * made whether or not the service's checks pass: the service's checks are a minimum. Undefined when
 * the records hold nothing to judge by.
 */
export async function judgeDomain(
  request: Pick<DiagnosisRequest, "records" | "nameservers" | "query">,
): Promise<ReceiversJudgement | undefined> {
  const judge = receiversJudge(request.records, {
    ...(request.nameservers ? { nameservers: request.nameservers } : {}),
    query: request.query ?? doctorDnsQuery(),
  });
  return judge?.();
}

/** What `examineDomain` needs before the service's check is known. */
export type ExamineRequest = Pick<DiagnosisRequest, "records" | "nameservers" | "query">;

/** The DNS side of one doctor run: the judgement, started at once, and the failing checks' diagnosis. */
export interface Examination {
  /** Receivers' judgement, or why it could not be made; undefined when there is nothing to judge. */
  receivers: Promise<ReceiversReport | undefined>;
  /** Each failing check's diagnosis, or why none could be made (the service's answer stands). */
  diagnose(
    result: DomainCheck,
    failing: readonly CheckName[],
  ): Promise<{ diagnosis: DoctorDiagnosis[]; diagnosisError?: string }>;
}

/**
 * Starts receivers' judgement now (it does not depend on the service's answer, so it runs while
 * the service checks), and diagnoses the failing checks when asked, both through one query.
 */
export function examineDomain(request: ExamineRequest): Examination {
  const query = request.query ?? doctorDnsQuery();
  const receivers = judgeDomain({ ...request, query }).then(
    (judgement): ReceiversReport | undefined => judgement && { judgement },
    (error: Error): ReceiversReport => ({ error: error.message }),
  );
  return {
    receivers,
    diagnose: (result, failing) =>
      diagnoseChecks({ ...request, query, result, failing }).then(
        (diagnosis) => ({ diagnosis }),
        (error: Error) => ({ diagnosis: [], diagnosisError: error.message }),
      ),
  };
}
