import { createClient, findDomain, isEmailApiError, type DomainCheck } from "../client";
import { redact } from "../client/redact";
import type { DnsRecord } from "../client";
import { CHECK_NAMES } from "../inputs/verification-inputs";
import { failingChecks } from "../verification/report";
import { DOCTOR_USAGE, DoctorUsageError, doctorOptions, HELP_REQUESTED } from "./options";
import type { Examination, ExamineRequest } from "./diagnosis";
import { domainRecords, readRecords, RecordsError } from "./records";
import { printableLines } from "./printing";
import { doctorReport, doctorTable, type DoctorDiagnosis, type ReceiversReport } from "./report";

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
   * What DNS serves, asked only when `--records` is given and the service has the domain:
   * receivers' judgement (started at once, while the service checks) and each failing check's
   * diagnosis. The bin passes `examineDomain` (diagnosis.ts), loaded then.
   * @default none: the service's table only
   */
  examine?: (request: ExamineRequest) => Promise<Examination>;
}

/** Printed under a failing table when there are no records to diagnose with. */
export const RECORDS_HINT = "Pass --records FILE (see --help) for what DNS serves and what to do.";

/** The exit codes: every check passes; one does not (or no such domain); a usage or settings error. */
export const EXIT = { passed: 0, failing: 1, usage: 2 } as const;

/** The command; resolves to its exit code ({@link EXIT}). */
export async function runDoctor(args: string[], io: DoctorIo): Promise<number> {
  // Every line printed, to either stream, with its control and bidi characters escaped (printing.ts).
  const stdout = (text: string) => io.stdout(printableLines(text));
  const stderr = (text: string) => io.stderr(printableLines(text));
  let options;
  try {
    options = doctorOptions(args, io.env);
  } catch (error) {
    if (!(error instanceof DoctorUsageError)) throw error;
    stderr(`pulumi-email-delivery: ${error.message}\n\n${DOCTOR_USAGE}\n`);
    return EXIT.usage;
  }
  if (options === HELP_REQUESTED) {
    stdout(`${DOCTOR_USAGE}\n`);
    return EXIT.passed;
  }
  if (options.apiKeyFromFlag)
    stderr(
      "pulumi-email-delivery: --api-key is visible to other users (ps) and kept in shell history; " +
        "prefer EMAIL_DELIVERY_API_KEY\n",
    );

  // The records first: a file that cannot be read is a usage error, before the service is asked.
  // Which of them are the domain's is asked once the service has the domain: for a domain it does
  // not have, that is the answer, records or not (exit 1).
  const source = options.records === "-" ? "stdin" : (options.records ?? "");
  let found: DnsRecord[] | undefined;
  if (options.records !== undefined) {
    try {
      found = readRecords(await io.readText(options.records), source);
    } catch (error) {
      const reason =
        error instanceof RecordsError
          ? error.message
          : `--records ${source}: cannot read it (${(error as Error).message})`;
      stderr(`pulumi-email-delivery: ${reason}\n`);
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
  const serviceError = (error: unknown) => {
    const reason =
      isEmailApiError(error) && error.kind === "auth"
        ? `the service at ${redact(options.baseUrl, secret)} refused the API key from ` +
          `${options.apiKeyFromFlag ? "--api-key" : "EMAIL_DELIVERY_API_KEY"}` +
          `${isEmailApiError(error) && error.code ? ` (${error.code})` : ""}: give a server API key of type API ` +
          "of the server that holds the domain (Postal: the server → Credentials)"
        : `could not ask the service at ${redact(options.baseUrl, secret)}: ${(error as Error).message}`;
    stderr(`pulumi-email-delivery: ${redact(reason, secret)}\n`);
    return EXIT.usage;
  };
  let domain;
  try {
    domain = findDomain(await client.listDomains(), options.domain);
  } catch (error) {
    return serviceError(error);
  }
  let records: DnsRecord[] | undefined;
  try {
    records = domain && found && domainRecords(found, source, options.domain);
  } catch (error) {
    stderr(`pulumi-email-delivery: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  let result: DomainCheck | undefined;
  let examination: Examination | undefined;
  if (domain) {
    const checking = client.checkDomain(domain.id);
    checking.catch(() => undefined); // awaited below; not unhandled while DNS starts
    // DNS starts once the check's request is out (the next turn of the event loop): loading the
    // DNS code and judging receivers then overlap the service's own DNS lookups.
    const examine = io.examine;
    if (records && examine) {
      const request = { records, ...(options.nameservers ? { nameservers: options.nameservers } : {}) };
      await new Promise((resolve) => setImmediate(resolve));
      examination = await examine(request);
    }
    try {
      result = await checking;
    } catch (error) {
      return serviceError(error);
    }
  }
  const failing = result ? failingChecks(result, CHECK_NAMES) : [];
  let diagnosis: DoctorDiagnosis[] = [];
  let diagnosisError: string | undefined;
  // The service's answer stands without a diagnosis: the exit code is the service's.
  if (result && examination && failing.length > 0)
    ({ diagnosis, diagnosisError } = await examination.diagnose(result, failing));
  const receivers: ReceiversReport | undefined = examination && (await examination.receivers);
  const report = doctorReport(options.domain, result, diagnosis, diagnosisError, receivers);
  const text = options.json ? JSON.stringify(report, null, 2) : doctorTable(report);
  stdout(`${redact(text, secret)}\n`);
  if (failing.length > 0 && !records) (options.json ? stderr : stdout)(`${RECORDS_HINT}\n`);
  return report.passed ? EXIT.passed : EXIT.failing;
}
