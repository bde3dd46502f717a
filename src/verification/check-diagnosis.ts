import type { DomainCheck } from "../client";
import type { CheckName } from "../inputs";
import {
  CheckDiagnosis,
  diagnose,
  Diagnoser,
  DiagnosisFacts,
  ExpectedRecord,
  ZoneRecordFact,
} from "./diagnosis";
import { DnsFactsOptions, gatherDnsFacts } from "./dns-facts";
import { CHECKS } from "./report";

/**
 * The seam between a wait (or the doctor command) and the diagnosis: for each failing check, the
 * facts about its expected record and what they mean. `waitForChecks` takes the function
 * `checkDiagnoser` makes (`WaitOptions.diagnose`); the report words what it returns.
 */

/** The record purpose each check looks at (`DnsRecord.purpose`). */
export const CHECK_PURPOSES: Record<CheckName, ExpectedRecord["purpose"]> = {
  spf: "spf",
  dkim: "dkim",
  mx: "mx",
  returnPath: "return_path",
};

export interface DiagnoserOptions {
  /** The records the service asked for (the domain's `dnsRecords`, TXT unquoted). */
  expected: readonly ExpectedRecord[];
  /** Where and how to ask DNS. @default the zone's nameservers and the machine's resolver */
  dns?: DnsFactsOptions;
  /**
   * The zone's records at some names (Cloudflare's list, `proxied` included), when the `Domain`
   * publishes to Cloudflare. @default none: the zone is not known, only DNS is asked
   */
  zoneRecords?: (names: string[]) => Promise<{ zone: string; records: ZoneRecordFact[] }>;
}

/**
 * A `Diagnoser` over DNS (and the zone, when given). A check with several expected records (MX
 * with two hosts) is diagnosed by its first record the DNS does not serve as expected, else its
 * first. The checks' facts are gathered side by side.
 */
export function checkDiagnoser(options: DiagnoserOptions): Diagnoser {
  return async (result, failing) => {
    const entries = await Promise.all(
      failing.map(async (check) => {
        const candidates = options.expected.filter((record) => record.purpose === CHECK_PURPOSES[check]);
        let chosen: CheckDiagnosis | undefined;
        for (const expected of candidates) {
          const found = await diagnoseRecord(expected, check, result, options);
          chosen ??= found;
          if (found.diagnosis.case !== "ok" && found.diagnosis.case !== "service-disagrees") {
            chosen = found;
            break;
          }
        }
        return [check, chosen] as const;
      }),
    );
    return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
  };
}

async function diagnoseRecord(
  expected: ExpectedRecord,
  check: CheckName,
  result: DomainCheck,
  options: DiagnoserOptions,
): Promise<CheckDiagnosis> {
  const { zoneName, ...dnsFacts } = await gatherDnsFacts(expected, options.dns);
  const service = {
    status: (result[CHECKS[check].status] as string | null) ?? null,
    text: (result[CHECKS[check].error] as string | null) ?? null,
  };
  let zone: DiagnosisFacts["zone"];
  if (options.zoneRecords) {
    const doubled = zoneName ? [`${expected.name.replace(/\.$/, "")}.${zoneName}`] : [];
    const held = await options.zoneRecords([expected.name, ...doubled]);
    zone = { name: held.zone, records: held.records };
  }
  const facts: DiagnosisFacts = { ...dnsFacts, ...(zone ? { zone } : {}), service };
  return { facts, diagnosis: diagnose(facts) };
}
