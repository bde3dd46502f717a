import type { DnsRecord, DomainCheck } from "../client";
import type { CheckName } from "../inputs";
import { diagnose } from "./diagnosis";
import type {
  CheckDiagnoses,
  CheckDiagnosis,
  Diagnoser,
  DiagnosisFacts,
  ExpectedRecord,
  ZoneRecordFact,
} from "./diagnosis-facts";
import {
  bareName,
  DEFAULT_DNS_TIMEOUT_MS,
  discoveryCache,
  DiscoveryCache,
  DnsFactsOptions,
  gatherDnsFacts,
} from "./dns-facts";
import { DnsQuery, nodeDnsQuery } from "../dns/dns-query";
import { authoritativeShow } from "./dns-first";
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

/** What a `checkDiagnoser` is made with, for its life (what one call adds is `DiagnoseOptions`). */
export interface CheckDiagnoserSettings {
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
 * A `Diagnoser` over DNS (and the zone, when given and asked for). A check with several expected
 * records (MX with two hosts) is diagnosed by its first record the DNS does not serve as expected,
 * else its first. The checks' facts are gathered side by side; the zone of each name and its
 * nameservers are looked up once for the diagnoser's life (`DiscoveryCache`), so a wait that
 * diagnoses on every poll asks only for the records themselves after its first.
 */
export function checkDiagnoser(settings: CheckDiagnoserSettings): Diagnoser {
  const cache = discoveryCache();
  const query = settings.dns?.query ?? nodeDnsQuery(settings.dns?.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS);
  return async (result, failing, call = {}) => {
    // One query per server, name and type in a call: MX's two hosts share their answers.
    const asked = new Map<string, ReturnType<DnsQuery>>();
    const once: DnsQuery = (server, name, type) => {
      const key = `${server ?? ""} ${name.toLowerCase()} ${type}`;
      let answer = asked.get(key);
      if (!answer) asked.set(key, (answer = query(server, name, type)));
      return answer;
    };
    const gathering = Promise.all(
      failing.map(async (check) => {
        const known = call.known?.[check];
        if (known) return [check, [withoutService(known.facts)] as RecordFacts[]] as const;
        const candidates = settings.expected.filter((record) => record.purpose === CHECK_PURPOSES[check]);
        const gathered = await Promise.all(
          candidates.map((expected) =>
            gatherDnsFacts(
              expected,
              { ...settings.dns, query: once, authoritativeOnly: call.brief === true },
              cache,
            ),
          ),
        );
        return [check, gathered] as const;
      }),
    );
    const dns = await within(gathering, call.timeoutMs);
    // The zone only adds to what DNS says: a read that fails or is late leaves it out.
    if (call.zone && settings.zoneRecords)
      await within(addZone(dns, settings.zoneRecords, cache), call.timeoutMs).catch(() => undefined);
    const diagnoses: CheckDiagnoses = {};
    for (const [check, candidates] of dns) {
      const chosen = choose(candidates.map((facts) => classify(facts, serviceSays(result, check))));
      if (chosen) diagnoses[check] = chosen;
    }
    return diagnoses;
  };
}

/** DNS facts of one expected record, the zone's records when asked, without the service's. */
type RecordFacts = Omit<DiagnosisFacts, "service"> & { zoneName?: string };

function withoutService(facts: DiagnosisFacts): RecordFacts {
  const { service: _service, ...rest } = facts;
  return rest;
}

/**
 * The first candidate some authoritative nameserver does not serve, else the first one diagnosed
 * as a problem (a resolver still caching, SPF's extra record), else the first. A record missing
 * from the nameservers comes first: it is what the service's check fails on, and a DNS-first
 * wait reads "DNS shows the records" from the chosen one (`dnsVerdict`).
 */
function choose(candidates: CheckDiagnosis[]): CheckDiagnosis | undefined {
  return (
    candidates.find(({ facts }) => authoritativeShow(facts) === "not-all") ??
    candidates.find(({ diagnosis }) => diagnosis.case !== "ok" && diagnosis.case !== "service-disagrees") ??
    candidates[0]
  );
}

function classify(dns: RecordFacts, service: DiagnosisFacts["service"]): CheckDiagnosis {
  const { zoneName: _zoneName, ...rest } = dns;
  const facts: DiagnosisFacts = { ...rest, service };
  return { facts, diagnosis: diagnose(facts) };
}

/** What the service says of `check` in `result`: null and null before its first check. */
function serviceSays(result: DomainCheck | undefined, check: CheckName): DiagnosisFacts["service"] {
  return {
    status: ((result?.[CHECKS[check].status] as string | null) ?? null) as string | null,
    text: ((result?.[CHECKS[check].error] as string | null) ?? null) as string | null,
  };
}

/**
 * The same facts classified again against a newer check result: what a DNS-first wait does after
 * the service answered, instead of asking DNS a second time in one poll (`diagnose` is pure).
 * Only the checks still failing in `result` are kept.
 */
export function reclassify(
  diagnoses: CheckDiagnoses,
  result: DomainCheck,
  failing: readonly CheckName[],
): CheckDiagnoses {
  const again: CheckDiagnoses = {};
  for (const check of failing) {
    const found = diagnoses[check];
    if (found) again[check] = classify(withoutService(found.facts), serviceSays(result, check));
  }
  return again;
}

/**
 * One request for the zone's records at every name the checks look at (and each doubled), each
 * record's facts then holding those at its own names: a Cloudflare read is rate-limited
 * account-wide, so one diagnosis costs one call, whatever the number of checks.
 */
async function addZone(
  dns: ReadonlyArray<readonly [CheckName, RecordFacts[]]>,
  zoneRecords: NonNullable<CheckDiagnoserSettings["zoneRecords"]>,
  cache: DiscoveryCache,
): Promise<void> {
  const all = dns.flatMap(([, candidates]) => candidates);
  // Facts reused from an earlier call no longer carry the zone's name; the cache still has it.
  for (const facts of all) facts.zoneName ??= await cache.zones.get(bareName(facts.expected.name));
  const namesOf = (facts: RecordFacts) => {
    const name = facts.expected.name;
    return facts.zoneName ? [name, `${bareName(name)}.${facts.zoneName}`] : [name];
  };
  const names = [...new Set(all.flatMap(namesOf))];
  if (names.length === 0) return;
  const held = await zoneRecords(names);
  for (const facts of all) {
    const here = namesOf(facts).map(bareName);
    facts.zone = {
      // DNS's name for the zone when it found one: the reader may know the zone by its id only.
      name: facts.zoneName ?? held.zone,
      records: held.records.filter((record) => here.includes(bareName(record.name))),
    };
  }
}

/**
 * `gathering`, or a rejection once `timeoutMs` has passed: a gather's queries are each bounded,
 * but a poll must not wait on all of them in a row longer than its own request bound.
 */
async function within<T>(gathering: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return gathering;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`DNS did not answer within ${Math.round(timeoutMs / 1000)} s`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([gathering, late]);
  } finally {
    clearTimeout(timer);
    gathering.catch(() => undefined); // lost the race: its late failure is nobody's
  }
}

/** The purposes the service's four checks look at; other records (DMARC, tracking) are not waited for. */
const CHECKED_PURPOSES: ReadonlySet<string> = new Set(Object.values(CHECK_PURPOSES));

/** The records the checks look at, as the diagnosis names them. */
export function expectedRecords(records: readonly DnsRecord[]): ExpectedRecord[] {
  return records
    .filter((record) => CHECKED_PURPOSES.has(record.purpose))
    .map((record) => ({
      purpose: record.purpose as ExpectedRecord["purpose"],
      name: record.name,
      type: record.type,
      value: record.content,
    }));
}
