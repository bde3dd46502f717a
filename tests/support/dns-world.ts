import { steppedWaitClock } from "./fake-clock";
import { DomainCheck, EmailApiError } from "../../provider/client";
import type { CheckName } from "../../provider/inputs";
import { checkDiagnoser } from "../../provider/verification/check-diagnosis";
import type { ExpectedRecord } from "../../provider/verification/diagnosis-facts";
import type { DnsAnswer } from "../../provider/dns/dns-query";
import { CHECKS } from "../../provider/verification/report";
import { waitForChecks, WaitOptions } from "../../provider/verification/wait";
import { ALL_CHECKS_OK } from "./checks";

/**
 * A scripted world for DNS-first waits, on a fake clock: one nameserver serving a DKIM and an MX
 * record from `appearsAtMs` on, and a service whose check agrees with it (or never does), each
 * counting what it is asked. The wait is the real `waitForChecks` with the real `checkDiagnoser`;
 * only DNS (a table) and the service (a function) are scripted. Used by the wait's tests and the
 * bench's "service checks per verified domain".
 */

export const WORLD_DKIM: ExpectedRecord = {
  purpose: "dkim",
  name: "postal-ab._domainkey.mail.example.com",
  type: "TXT",
  value: "v=DKIM1; t=s; h=sha256; p=KEY",
};
export const WORLD_MX: ExpectedRecord = {
  purpose: "mx",
  name: "mail.example.com",
  type: "MX",
  value: "mx.postal.example",
};
const WORLD_CHECKS: CheckName[] = ["dkim", "mx"];

export interface WorldOptions {
  /** When DNS starts serving the records. @default 0 */
  appearsAtMs?: number;
  /** How the nameserver answers: as scripted, or with an error to every query ("cannot tell"). */
  dns?: "serves" | "errors";
  /** The service's check: it sees what DNS serves, or says `Missing` whatever DNS serves. */
  service?: "agrees" | "never-agrees";
  /** Fields every check answer holds besides the world's (another check failing). @default none */
  serviceAlsoSays?: Partial<DomainCheck>;
  /** Moments at which the service's check fails with a transient error ("not yet"). @default none */
  serviceDownAtMs?: readonly number[];
  /** Whether the zone's records can be read (a `zoneRecords` that counts its calls). @default false */
  zone?: boolean;
  /** The wait's options beyond the world's. */
  wait?: Partial<WaitOptions>;
}

export interface WorldCounts {
  serviceChecks: number;
  /** Queries per type (`NS`, `A`, `TXT`, `MX`, `CNAME`). */
  queries: Record<string, number>;
  zoneReads: number;
  /** `zoneReads` as each progress line was written. */
  zoneReadsWhilePolling: number[];
  lines: string[];
}

/** Runs one wait in the world; `timeoutMs` 600 s, polls every 5 s unless `wait` says otherwise. */
export async function runInWorld(options: WorldOptions = {}) {
  const clock = steppedWaitClock();
  const appearsAt = options.appearsAtMs ?? 0;
  const counts: WorldCounts = {
    serviceChecks: 0,
    queries: {},
    zoneReads: 0,
    zoneReadsWhilePolling: [],
    lines: [],
  };
  const serves = () => clock.time >= appearsAt;
  const table = (name: string, type: string): DnsAnswer => {
    if (type === "NS") return name === "example.com" ? { values: ["ns1.example.net"] } : { nxdomain: true };
    if (type === "A" && name === "ns1.example.net") return { values: ["192.0.2.1"] };
    if (type === "TXT" && name === WORLD_DKIM.name && serves()) return { values: [WORLD_DKIM.value] };
    if (type === "MX" && name === WORLD_MX.name && serves()) return { values: [WORLD_MX.value] };
    return { nxdomain: true };
  };
  const diagnose = checkDiagnoser({
    expected: [WORLD_DKIM, WORLD_MX],
    dns: {
      resolver: "192.0.2.53",
      query: async (_server, name, type) => {
        counts.queries[type] = (counts.queries[type] ?? 0) + 1;
        return options.dns === "errors" ? { error: "timed out" } : table(name, type);
      },
    },
    ...(options.zone
      ? {
          zoneRecords: async () => {
            counts.zoneReads++;
            return { zone: "example.com", records: [] };
          },
        }
      : {}),
  });
  const check = async (): Promise<DomainCheck> => {
    counts.serviceChecks++;
    if (options.serviceDownAtMs?.includes(clock.time))
      throw new EmailApiError({ operation: "domains/check", kind: "transient", serviceMessage: "down" });
    const passes = options.service !== "never-agrees" && serves();
    const status = passes ? "OK" : "Missing";
    return {
      ...ALL_CHECKS_OK,
      [CHECKS.dkim.status]: status,
      [CHECKS.dkim.error]: passes ? null : "No DKIM record found",
      [CHECKS.mx.status]: status,
      [CHECKS.mx.error]: passes ? null : "No MX records found",
      ...options.serviceAlsoSays,
    };
  };
  const outcome = await waitForChecks(check, {
    checks: WORLD_CHECKS,
    timeoutMs: 600_000,
    pollIntervalMs: 5_000,
    maxPollIntervalMs: 5_000,
    log: (line) => {
      counts.lines.push(line);
      counts.zoneReadsWhilePolling.push(counts.zoneReads);
    },
    ...clock.wait,
    diagnose,
    ...options.wait,
  });
  return { outcome, counts, endedAtMs: clock.time };
}
