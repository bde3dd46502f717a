import { DEFAULT_SERVICE_CHECK_CAP_MS } from "../provider/verification/dns-first";
import { runInWorld } from "../tests/support/dns-world";
import { table } from "./table";

/**
 * Service checks per verified domain, DNS-first against service-only (issue 26, item 3): the real
 * `waitForChecks` and `checkDiagnoser` (this repository's sources) on a fake clock, in the
 * scripted world of `tests/support/dns-world.ts` (DNS a table that serves the records from T on,
 * the service a function that agrees with it), default poll settings (5 s, cap 5 s, 600 s). No
 * time is slept or measured: the figures are counts, so a smoke run gives the real ones.
 */

/** The aim: a domain whose records appear within two minutes costs at most 2 service checks. */
export const DNS_FIRST_TARGET = { serviceChecksPerDomain: 2 };

/** The moments the records appear, in seconds after the wait begins (the rows). */
export const DNS_FIRST_APPEARS_AFTER_S = [0, 30, 120];

export interface DnsFirstFigures {
  appearsAfterSeconds: number;
  /** Service checks until verified, with `dnsFirst` (the default cap). */
  dnsFirst: number;
  /** The same wait asking the service on every poll. */
  serviceOnly: number;
  /** Polls of the DNS-first wait (each asked DNS). */
  polls: number;
  verified: boolean;
}

export async function measureDnsFirst(appearsAfter = DNS_FIRST_APPEARS_AFTER_S): Promise<DnsFirstFigures[]> {
  const figures: DnsFirstFigures[] = [];
  for (const seconds of appearsAfter) {
    const appearsAtMs = seconds * 1000;
    const first = await runInWorld({
      appearsAtMs,
      wait: { dnsFirst: { serviceCheckCapMs: DEFAULT_SERVICE_CHECK_CAP_MS } },
    });
    const only = await runInWorld({ appearsAtMs });
    figures.push({
      appearsAfterSeconds: seconds,
      dnsFirst: first.outcome.serviceChecks,
      serviceOnly: only.outcome.serviceChecks,
      polls: first.outcome.polls,
      verified: first.outcome.verified && only.outcome.verified,
    });
  }
  return figures;
}

/** Table lines: per T, both counts, their ratio, and the verdict against the aim. */
export function formatDnsFirst(figures: DnsFirstFigures[]): string[] {
  const aim = DNS_FIRST_TARGET.serviceChecksPerDomain;
  return [
    "",
    "Service checks (domains/check) per verified domain when the records appear T s after the wait begins: the real",
    `waitForChecks on a fake clock, DNS and the service scripted; default poll settings, DNS-first cap ${DEFAULT_SERVICE_CHECK_CAP_MS / 1000} s.`,
    `Aim (the floor compared against): DNS-first ≤ ${aim} per domain.`,
    table(
      ["T", "polls", "service-only", "DNS-first", "service-only / DNS-first", `verdict (≤ ${aim})`],
      figures.map((f) => [
        `${f.appearsAfterSeconds} s`,
        String(f.polls),
        String(f.serviceOnly),
        String(f.dnsFirst),
        `${(f.serviceOnly / f.dnsFirst).toFixed(1)}×`,
        f.verified && f.dnsFirst <= aim ? "ok" : "MISSED",
      ]),
    ),
  ];
}
