import { createClient, findDomain, isEmailApiError, type DomainCheck } from "../client";
import { redact } from "../client/redact";
import type { DnsRecord } from "../client";
import { CHECK_NAMES } from "../inputs/verification-inputs";
import { failingChecks } from "../verification/report";
import { DOCTOR_USAGE, DoctorUsageError, doctorOptions, HELP_REQUESTED } from "./options";
import type { DiagnosisRequest } from "./diagnosis";
import { readRecords, RecordsError } from "./records";
import { doctorReport, doctorTable, type DoctorDiagnosis, type ReceiversReport } from "./report";
import type { ReceiversJudgement } from "../receivers/judge";

/**
 * `pulumi-email-delivery doctor <domain>`: finds the domain by name, asks the service to check it
 * (`domains/check`: the API has no read-only status with texts; `domains/list` holds the statuses
 * of the last check only, without what the service says), and prints the result; with
 * `--records`, what DNS serves for each failing check and what receivers make of the domain's
 * mail. Exit codes: 0 every check passes (and receivers accept the mail, when judged), 1 one does
 * not, receivers would not accept the mail or could not be judged (or the service has no such
 * domain), 2 a usage or settings error, or a service that could not be asked (an unreachable base
 * URL, a refused key).
 */

/** What the command prints through and reads; the bin passes the process's own. */
export interface DoctorIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** A file's text (`--records`); `-` is stdin. */
  readText: (path: string) => Promise<string>;
  /**
   * What DNS serves for each failing check, asked only when `--records` is given and a check
   * fails. The bin passes `diagnoseChecks` (diagnosis.ts). @default none: the service's table only
   */
  diagnose?: (request: DiagnosisRequest) => Promise<DoctorDiagnosis[]>;
  /**
   * What receivers make of the domain's mail from DNS as served, asked whenever `--records` is
   * given, the service's checks passing or not. The bin passes `judgeDomain` (diagnosis.ts).
   * @default none: the service's checks alone decide
   */
  judge?: (
    request: Pick<DiagnosisRequest, "records" | "nameservers">,
  ) => Promise<ReceiversJudgement | undefined>;
}

/** Printed under a failing table when there are no records to diagnose with. */
export const RECORDS_HINT = "Pass --records FILE (see --help) for what DNS serves and what to do.";

export const EXIT = { passed: 0, failing: 1, usage: 2 } as const;

export async function runDoctor(args: string[], io: DoctorIo): Promise<number> {
  let options;
  try {
    options = doctorOptions(args, io.env);
  } catch (error) {
    if (!(error instanceof DoctorUsageError)) throw error;
    io.stderr(`pulumi-email-delivery: ${error.message}\n\n${DOCTOR_USAGE}\n`);
    return EXIT.usage;
  }
  if (options === HELP_REQUESTED) {
    io.stdout(`${DOCTOR_USAGE}\n`);
    return EXIT.passed;
  }
  if (options.apiKeyFromFlag)
    io.stderr(
      "pulumi-email-delivery: --api-key is visible to other users (ps) and kept in shell history; " +
        "prefer EMAIL_DELIVERY_API_KEY\n",
    );

  // The records first: a file that cannot be read is a usage error, before the service is asked.
  let records: DnsRecord[] | undefined;
  if (options.records !== undefined) {
    const source = options.records === "-" ? "stdin" : options.records;
    try {
      records = readRecords(await io.readText(options.records), source, options.domain);
    } catch (error) {
      const reason =
        error instanceof RecordsError
          ? error.message
          : `--records ${source}: cannot read it (${(error as Error).message})`;
      io.stderr(`pulumi-email-delivery: ${reason}\n`);
      return EXIT.usage;
    }
  }

  const secret = [options.apiKey];
  // One request's worth of retries: a CI smoke test wants an answer, not a minute of backoff.
  const client = createClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    retry: { maxAttempts: 2 },
  });
  let result: DomainCheck | undefined;
  try {
    const domain = findDomain(await client.listDomains(), options.domain);
    result = domain && (await client.checkDomain(domain.id));
  } catch (error) {
    const reason =
      isEmailApiError(error) && error.kind === "auth"
        ? `the service at ${redact(options.baseUrl, secret)} refused the API key`
        : `could not ask the service at ${redact(options.baseUrl, secret)}: ${(error as Error).message}`;
    io.stderr(`pulumi-email-delivery: ${redact(reason, secret)}\n`);
    return EXIT.usage;
  }
  const failing = result ? failingChecks(result, CHECK_NAMES) : [];
  let diagnosis: DoctorDiagnosis[] = [];
  let diagnosisError: string | undefined;
  if (result && failing.length > 0 && records && io.diagnose) {
    try {
      diagnosis = await io.diagnose({
        result,
        failing,
        records,
        nameservers: options.nameservers,
      });
    } catch (error) {
      // The service's answer stands without it: the exit code is the service's.
      diagnosisError = (error as Error).message;
    }
  }
  let receivers: ReceiversReport | undefined;
  if (result && records && io.judge) {
    try {
      const judgement = await io.judge({ records, nameservers: options.nameservers });
      if (judgement) receivers = { judgement };
    } catch (error) {
      receivers = { error: (error as Error).message };
    }
  }
  const report = doctorReport(options.domain, result, diagnosis, diagnosisError, receivers);
  const text = options.json ? JSON.stringify(report, null, 2) : doctorTable(report);
  io.stdout(`${redact(text, secret)}\n`);
  if (failing.length > 0 && !records) (options.json ? io.stderr : io.stdout)(`${RECORDS_HINT}\n`);
  return report.passed ? EXIT.passed : EXIT.failing;
}
