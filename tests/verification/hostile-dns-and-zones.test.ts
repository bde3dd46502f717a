import { steppedWaitClock } from "../support/fake-clock";
import { DomainCheck, EmailApiError } from "../../provider/client";
import type { CheckName } from "../../provider/inputs";
import { checkDiagnoser } from "../../provider/verification/check-diagnosis";
import { diagnose } from "../../provider/verification/diagnosis";
import { ExpectedRecord } from "../../provider/verification/diagnosis-facts";
import type { DnsAnswer } from "../../provider/dns/dns-query";
import { DEFAULT_SERVICE_CHECK_CAP_MS } from "../../provider/verification/dns-first";
import { CHECKS } from "../../provider/verification/report";
import { waitForChecks } from "../../provider/verification/wait";
import { ALL_CHECKS_OK } from "../support/checks";

/**
 * An adversarial review's reproductions, each of which failed before its fix: a wait against
 * silent nameservers ends at its timeout (no unbounded final diagnosis), the classifier in a zone
 * full of other people's records (site-verification TXT, a proxied website, a wildcard), and a
 * service check that got no answer asked again at the next poll. All clocks are fake (jest modern
 * timers): DNS timeouts are simulated, never waited for.
 */

const DKIM: ExpectedRecord = {
  purpose: "dkim",
  name: "postal-ab._domainkey.mail.example.com",
  type: "TXT",
  value: "v=DKIM1; t=s; h=sha256; p=KEY;",
};
const MX: ExpectedRecord = {
  purpose: "mx",
  name: "mail.example.com",
  type: "MX",
  value: "mx.postal.example",
};
const CHECKS_WAITED: CheckName[] = ["dkim", "mx"];

const failing = (): DomainCheck => ({
  ...ALL_CHECKS_OK,
  [CHECKS.dkim.status]: "Missing",
  [CHECKS.dkim.error]: "No TXT records were returned",
  [CHECKS.mx.status]: "Missing",
  [CHECKS.mx.error]: "There are no MX records",
});

describe("a wait against a nameserver that never answers (fake timers)", () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it("ends within timeoutSeconds (+1 s) when the zone's nameservers are silent", async () => {
    // The resolver answers at once; the zone's two authoritative servers never answer: each query
    // to them ends after the package's 3 s per-query timeout (nodeDnsQuery). Firewalled egress to
    // port 53 is the common real case.
    let inFlight = 0;
    const query = (server: string | undefined, name: string, type: string): Promise<DnsAnswer> => {
      const table = (): DnsAnswer => {
        if (type === "NS")
          return name === "example.com" ? { values: ["ns1.example.net", "ns2.example.net"] } : { values: [] };
        if (type === "A" && name === "ns1.example.net") return { values: ["192.0.2.1"] };
        if (type === "A" && name === "ns2.example.net") return { values: ["192.0.2.2"] };
        return { nxdomain: true };
      };
      const silent = server === "192.0.2.1" || server === "192.0.2.2";
      inFlight++;
      return new Promise((resolve) =>
        setTimeout(
          () => {
            inFlight--;
            resolve(silent ? { error: "timed out" } : table());
          },
          silent ? 3000 : 5,
        ),
      );
    };
    const diagnose = checkDiagnoser({ expected: [DKIM, MX], dns: { resolver: "192.0.2.53", query } });
    const timeoutMs = 60_000;
    let endedAt: number | undefined;
    const waiting = waitForChecks(async () => failing(), {
      checks: CHECKS_WAITED,
      timeoutMs,
      pollIntervalMs: 5_000,
      maxPollIntervalMs: 5_000,
      log: () => undefined,
      random: () => 0.5,
      diagnose,
      dnsFirst: { serviceCheckCapMs: DEFAULT_SERVICE_CHECK_CAP_MS },
    }).then((outcome) => {
      endedAt = Date.now();
      return outcome;
    });
    while (endedAt === undefined && Date.now() < 10 * timeoutMs) await jest.advanceTimersByTimeAsync(100);
    const outcome = await waiting;
    expect(outcome.verified).toBe(false);
    // Queries still running when the wait returned: gathers that outlived their poll.
    const leftRunning = inFlight;
    expect({ overrunMs: endedAt! - timeoutMs, leftRunning }).toEqual({
      overrunMs: expect.any(Number),
      leftRunning: expect.any(Number),
    });
    expect(endedAt! - timeoutMs).toBeLessThanOrEqual(1_000);
  });
});

describe("the classifier in a zone full of other people's records", () => {
  const SPF: ExpectedRecord = {
    purpose: "spf",
    name: "example.com",
    type: "TXT",
    value: "v=spf1 a mx include:spf.postal.example ~all",
  };
  const APEX_MX: ExpectedRecord = {
    purpose: "mx",
    name: "example.com",
    type: "MX",
    value: "mx.postal.example",
  };
  const tokens = ["google-site-verification=abc123", "MS=ms12345678", "apple-domain-verification=xyz"];
  const both = (values: string[]) => [
    { server: "ns1", answer: { values } },
    { server: "ns2", answer: { values } },
  ];

  it("an apex with verification tokens and no SPF record is 'not published', not 'another SPF record'", () => {
    const found = diagnose({
      expected: SPF,
      authoritative: both(tokens),
      service: { status: "Missing", text: "No SPF record exists for this domain" },
    });
    // Today: other-value, "exists at ns1, with another SPF record, without the service's include",
    // and the action "Add the service's include to that record" (a google-site-verification token).
    expect(found.case).toBe("not-published");
  });

  it("the same from the zone's records (the failure's final diagnosis)", () => {
    const found = diagnose({
      expected: SPF,
      zone: {
        name: "example.com",
        records: tokens.map((t) => ({ name: "example.com", type: "TXT", content: `"${t}"` })),
      },
      authoritative: both(tokens),
      service: { status: "Missing", text: "No SPF record exists for this domain" },
    });
    expect(found.case).toBe("not-published");
  });

  it("a proxied apex A record (the website) does not make SPF 'proxied', nor tell the user to turn the proxy off", () => {
    const found = diagnose({
      expected: SPF,
      zone: {
        name: "example.com",
        records: [{ name: "example.com", type: "A", content: "192.0.2.80", proxied: true }],
      },
      authoritative: both([]),
      service: { status: "Missing", text: "No SPF record exists for this domain" },
    });
    expect(found.case).toBe("not-published");
    expect(found.action).not.toMatch(/proxy off/);
  });

  it("nor MX", () => {
    const found = diagnose({
      expected: APEX_MX,
      zone: {
        name: "example.com",
        records: [{ name: "example.com", type: "AAAA", content: "2001:db8::80", proxied: true }],
      },
      authoritative: both([]),
      service: { status: "Missing", text: "There are no MX records for example.com" },
    });
    expect(found.case).not.toBe("proxied");
  });

  it("an SPF permerror that is not the lookup limit is not worded 'over the limit of 10'", () => {
    const found = diagnose({
      expected: SPF,
      authoritative: both(["v=spf1 include:gone.example include:spf.postal.example ~all"]),
      spf: {
        total: 2,
        limit: 10,
        problem: 'receivers return permerror for this SPF record: "include:gone.example" has no SPF record',
      },
      service: { status: "Invalid", text: "SPF record exists but doesn't include spf.postal.example" },
    });
    expect(`${found.case}: ${found.summary}`).not.toMatch(/over the limit/);
  });
});

describe("the doubled-name probe in a zone with a wildcard", () => {
  it("a wildcard CNAME (*.example.com, a common web setup) does not make a missing return path 'published at the wrong name'", () => {
    const RETURN_PATH: ExpectedRecord = {
      purpose: "return_path",
      name: "psrp.mail.example.com",
      type: "CNAME",
      value: "rp.postal.example",
    };
    // mail.example.com exists (its SPF, MX), so the wildcard does not cover psrp.mail.example.com
    // (NXDOMAIN) but does cover psrp.mail.example.com.example.com: the doubled-name probe gets
    // the wildcard's answer.
    const found = diagnose({
      expected: RETURN_PATH,
      zone: {
        name: "example.com",
        records: [{ name: "*.example.com", type: "CNAME", content: "example.com" }],
      },
      authoritative: [
        { server: "ns1", answer: { nxdomain: true } },
        { server: "ns2", answer: { nxdomain: true } },
      ],
      doubled: [{ server: "ns1", answer: { values: ["example.com"] } }],
      service: { status: "Missing", text: "There is no return path record at psrp.mail.example.com" },
    });
    expect(found.case).toBe("not-published");
  });
});

describe("a transient service failure at the cap", () => {
  it("is retried at the next poll, not a whole cap (120 s) later", async () => {
    // As above: a stale nameserver keeps DNS at "not yet"; the service says OK throughout, but its
    // check at the cap (120 s) fails with a 503. The wait then skips the service until 240 s.
    const clock = steppedWaitClock();
    const query = async (server: string | undefined, name: string, type: string): Promise<DnsAnswer> => {
      if (type === "NS")
        return name === "example.com" ? { values: ["ns1.example.net", "ns2.example.net"] } : { values: [] };
      if (type === "A") return { values: [name === "ns1.example.net" ? "192.0.2.1" : "192.0.2.2"] };
      if (server === "192.0.2.2") return { values: [] };
      if (type === "TXT" && name === DKIM.name) return { values: [DKIM.value] };
      if (type === "MX" && name === MX.name) return { values: [MX.value] };
      return { nxdomain: true };
    };
    const check = async (): Promise<DomainCheck> => {
      if (clock.time === 120_000)
        throw new EmailApiError({ operation: "domains/check", kind: "transient", serviceMessage: "503" });
      return ALL_CHECKS_OK;
    };
    const outcome = await waitForChecks(check, {
      checks: CHECKS_WAITED,
      timeoutMs: 600_000,
      pollIntervalMs: 5_000,
      maxPollIntervalMs: 5_000,
      log: () => undefined,
      ...clock.wait,
      diagnose: checkDiagnoser({ expected: [DKIM, MX], dns: { resolver: "192.0.2.53", query } }),
      dnsFirst: { serviceCheckCapMs: DEFAULT_SERVICE_CHECK_CAP_MS },
    });
    expect(outcome.verified).toBe(true);
    expect(clock.time).toBeLessThanOrEqual(125_000);
  });
});
