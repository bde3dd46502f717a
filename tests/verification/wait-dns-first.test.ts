import { steppedWaitClock } from "../support/fake-clock";
import { checkDiagnoser } from "../../provider/verification/check-diagnosis";
import type { DnsQuery } from "../../provider/dns/dns-query";
import {
  DEFAULT_SERVICE_CHECK_CAP_MS,
  dnsVerdict,
  serviceCheckReason,
} from "../../provider/verification/dns-first";
import { CHECKS, describeFailing, notChecked, timeoutMessage } from "../../provider/verification/report";
import type { DiagnosisCase } from "../../provider/verification/diagnosis-facts";
import type { CheckDiagnosis, DiagnoseOptions, Diagnoser } from "../../provider/verification/diagnosis-facts";
import { ALL_CHECKS_OK } from "../support/checks";
import { waitForChecks } from "../../provider/verification/wait";
import { runInWorld, WORLD_DKIM, WORLD_MX } from "../support/dns-world";

/**
 * A DNS-first wait (`WaitOptions.dnsFirst`): DNS asked on every poll, the service only when DNS
 * shows the records, cannot tell, the cap has run out, or at the deadline. The real wait and
 * diagnoser on a fake clock; DNS a table, the service a function counting its checks.
 */

const dnsFirst = { serviceCheckCapMs: DEFAULT_SERVICE_CHECK_CAP_MS };

describe("a DNS-first wait", () => {
  it.each([
    [0, 1],
    [30_000, 1],
    [120_000, 2],
    [121_000, 2],
  ])("with records appearing at %i ms, asks the service %i time(s) at most", async (appearsAtMs, most) => {
    const { outcome, counts } = await runInWorld({ appearsAtMs, wait: { dnsFirst } });
    expect(outcome.verified).toBe(true);
    expect(outcome.serviceChecks).toBe(counts.serviceChecks);
    expect(counts.serviceChecks).toBeLessThanOrEqual(most);
    expect(counts.serviceChecks).toBeGreaterThanOrEqual(1);
  });

  it("asks the service on every poll without dnsFirst, as before", async () => {
    const { outcome, counts } = await runInWorld({ appearsAtMs: 30_000 });
    expect(counts.serviceChecks).toBe(7); // 0, 5, … 30 s
    expect(outcome.polls).toBe(7);
  });

  it("keeps asking, at the poll pace, a service that never agrees while DNS shows the records", async () => {
    const { outcome, counts } = await runInWorld({
      service: "never-agrees",
      wait: { dnsFirst, timeoutMs: 60_000 },
    });
    expect(outcome.verified).toBe(false);
    expect(counts.serviceChecks).toBe(outcome.polls);
    expect(outcome.polls).toBe(13);
  });

  it("asks the service on every poll when DNS cannot tell", async () => {
    const { outcome, counts } = await runInWorld({
      appearsAtMs: Infinity,
      dns: "errors",
      wait: { dnsFirst, timeoutMs: 60_000 },
    });
    expect(counts.serviceChecks).toBe(13);
    expect(outcome.polls).toBe(13);
  });

  it.each([
    [
      "a failing check has no expected record",
      { checks: ["dkim", "mx", "spf"] as const },
      { [CHECKS.spf.status]: "Missing", [CHECKS.spf.error]: "No SPF record exists for this domain" },
    ],
    ["the diagnoser throws", { diagnose: () => Promise.reject(new Error("no resolver")) }, {}],
  ])("asks the service on every poll when %s", async (_why, wait, serviceAlsoSays) => {
    const { outcome, counts } = await runInWorld({
      appearsAtMs: Infinity,
      serviceAlsoSays,
      wait: { dnsFirst, timeoutMs: 60_000, ...wait },
    });
    expect(counts.serviceChecks).toBe(13);
    expect(outcome).toMatchObject({ verified: false, polls: 13, serviceChecks: 13 });
  });

  it("counts a requested check with no expected record as unknown only until the service passes it", async () => {
    // Poll 0: SPF has nothing to look for, so the service is asked; it says SPF passes. Then only
    // DKIM and MX fail, which DNS does not show: skipped until the deadline.
    const { outcome } = await runInWorld({
      appearsAtMs: Infinity,
      wait: { dnsFirst, timeoutMs: 60_000, checks: ["dkim", "mx", "spf"] },
    });
    expect(outcome).toMatchObject({ verified: false, polls: 13, serviceChecks: 2 });
  });

  it("skips the service while DNS shows nothing, until the cap, and always asks at the deadline", async () => {
    const { outcome } = await runInWorld({
      appearsAtMs: Infinity,
      wait: { dnsFirst, timeoutMs: 60_000 },
    });
    // Polls at 0, 5, … 60 s: the cap (120 s) never runs out; the last poll, at 60 s, asks.
    expect(outcome).toMatchObject({ verified: false, polls: 13, serviceChecks: 1 });
    expect(outcome.result?.dkimStatus).toBe("Missing");
    expect(timeoutMessage("mail.example.com", 60, ["dkim", "mx"], outcome)).toContain(
      "within 60 s (1 check; failing: dkim, mx)",
    );
  });

  it("asks the service once per cap while DNS shows nothing", async () => {
    const { counts } = await runInWorld({
      appearsAtMs: Infinity,
      wait: { dnsFirst: { serviceCheckCapMs: 30_000 }, timeoutMs: 120_000 },
    });
    expect(counts.serviceChecks).toBe(4); // 30, 60, 90 s, and the deadline at 120 s
  });

  it("asks the service again at the next poll when its check got no answer, not a whole cap later", async () => {
    // The cap's check at 120 s meets an outage: asked again at 125 s, then at the deadline (130 s).
    const { outcome, counts } = await runInWorld({
      appearsAtMs: Infinity,
      serviceDownAtMs: [120_000],
      wait: { dnsFirst, timeoutMs: 130_000 },
    });
    expect(outcome).toMatchObject({ verified: false, serviceChecks: 3 });
    expect(counts.lines.filter((line) => line.includes("(Missing;"))).not.toHaveLength(0);
  });

  it("words a skipped poll from DNS, and a checked one with the service's status too", async () => {
    const { counts } = await runInWorld({ appearsAtMs: Infinity, wait: { dnsFirst, timeoutMs: 10_000 } });
    expect(counts.lines[0]).toBe("waiting for DKIM (not published), MX (not published); 10s left");
    const after = await runInWorld({
      appearsAtMs: Infinity,
      wait: { dnsFirst: { serviceCheckCapMs: 0 }, timeoutMs: 10_000 },
    });
    expect(after.counts.lines[0]).toBe(
      "waiting for DKIM (Missing; not published), MX (Missing; not published); 10s left",
    );
  });

  it("words a poll whose service check failed from that poll's DNS, not an earlier poll's", async () => {
    // Polls at 0, 5 s skip; 10 s asks (the cap): Missing; 15 s skips; 20 s: DNS shows the records,
    // the service is down; 25 s: verified.
    const { outcome, counts } = await runInWorld({
      appearsAtMs: 20_000,
      serviceDownAtMs: [20_000],
      wait: { dnsFirst: { serviceCheckCapMs: 10_000 } },
    });
    expect(outcome).toMatchObject({ verified: true, polls: 6, serviceChecks: 3 });
    expect(counts.lines[3]).toMatch(
      /^waiting for DKIM \(Missing; not published\), MX \(Missing; not published\);/,
    );
    expect(counts.lines[4]).toBe(
      "waiting for DKIM (Missing; the service's check disagrees with DNS), " +
        "MX (Missing; the service's check disagrees with DNS); 9m40s left (last check: domains/check failed (transient): down.)",
    );
  });

  it("asks DNS once per poll, the nameservers only, and finds the zone and its nameservers once", async () => {
    const { outcome, counts } = await runInWorld({ appearsAtMs: 30_000, wait: { dnsFirst } });
    expect(outcome.polls).toBe(7);
    // Per poll: each record at the zone's one nameserver; the resolver and the doubled name are
    // left to a failure's diagnosis (at 1,000 domains, every query a poll makes counts).
    expect(counts.queries.TXT).toBe(7);
    expect(counts.queries.MX).toBe(7);
    // The zone walk of the DKIM name (4 NS; the MX name's 2 and the zone's own NS are among them,
    // asked once in a call), and its one nameserver's address: once for the wait.
    expect(counts.queries.NS).toBe(4);
    expect(counts.queries.A).toBe(1);
  });

  it.each([[{ dnsFirst }], [{}]])(
    "reads the zone's records once, for the failure, never while polling (%j)",
    async (wait) => {
      const { outcome, counts } = await runInWorld({
        appearsAtMs: Infinity,
        zone: true,
        wait: { ...wait, timeoutMs: 60_000 },
      });
      expect(counts.zoneReadsWhilePolling.every((reads) => reads === 0)).toBe(true);
      expect(counts.zoneReads).toBe(1);
      expect(outcome.diagnoses?.dkim?.facts.zone).toEqual({ name: "example.com", records: [] });
      expect(outcome.diagnoses?.dkim?.facts.service.status).toBe("Missing");
    },
  );
});

describe("serviceCheckReason", () => {
  const poll = { verdict: "not-yet" as const, sinceServiceCheckMs: 0, capMs: 120_000, atDeadline: false };
  it.each([
    [{}, undefined],
    [{ verdict: "shows" as const }, "dns-shows"],
    [{ verdict: "cannot-tell" as const }, "dns-cannot-tell"],
    [{ sinceServiceCheckMs: 119_999 }, undefined],
    [{ sinceServiceCheckMs: 120_000 }, "cap"],
    [{ atDeadline: true }, "deadline"],
  ])("%j → %s", (change, reason) => {
    expect(serviceCheckReason({ ...poll, ...change })).toBe(reason);
  });
});

describe("dnsVerdict", () => {
  it("reads a check with two MX hosts as not shown while one is missing, whatever the other's case", async () => {
    const RESOLVER = "192.0.2.53";
    const second = { ...WORLD_MX, value: "mx2.postal.example" };
    // The nameserver serves the first host only; the resolver still caches an empty answer, so the
    // first host's case is "propagating", a problem, though every nameserver serves it.
    const query: DnsQuery = async (server, name, type) => {
      if (type === "NS") return name === "example.com" ? { values: ["ns1.example.net"] } : { nxdomain: true };
      if (type === "A") return { values: ["192.0.2.1"] };
      if (type === "MX" && name === WORLD_MX.name)
        return server === RESOLVER ? { values: [] } : { values: [WORLD_MX.value] };
      return { nxdomain: true };
    };
    const diagnoser = checkDiagnoser({ expected: [WORLD_MX, second], dns: { resolver: RESOLVER, query } });
    const diagnoses = await diagnoser(undefined, ["mx"]);
    expect(diagnoses.mx?.facts.expected.value).toBe("mx2.postal.example");
    expect(dnsVerdict(["mx"], { diagnoses })).toBe("not-yet");
  });
});

describe("checkDiagnoser across calls", () => {
  it("looks a nameserver's address up again after it failed", async () => {
    const asked: string[] = [];
    let addressFails = true;
    const query: DnsQuery = async (_server, name, type) => {
      asked.push(`${type} ${name}`);
      if (type === "NS") return name === "example.com" ? { values: ["ns1.example.net"] } : { nxdomain: true };
      if (type === "A") return addressFails ? { error: "timed out" } : { values: ["192.0.2.1"] };
      return { nxdomain: true };
    };
    const diagnoser = checkDiagnoser({ expected: [WORLD_MX], dns: { resolver: "192.0.2.53", query } });
    const first = await diagnoser(undefined, ["mx"]);
    expect(first.mx?.facts.authoritative).toEqual([]);
    addressFails = false;
    const second = await diagnoser(undefined, ["mx"]);
    expect(second.mx?.facts.authoritative).toHaveLength(1);
    await diagnoser(undefined, ["mx"]);
    expect(asked.filter((query) => query === "A ns1.example.net")).toHaveLength(2);
  });

  it("gives up on a gather past its deadline", async () => {
    jest.useFakeTimers();
    try {
      const diagnoser = checkDiagnoser({
        expected: [WORLD_DKIM],
        dns: { resolver: "192.0.2.53", query: () => new Promise(() => undefined) },
      });
      const gathering = diagnoser(undefined, ["dkim"], { timeoutMs: 5_000 });
      const settled = expect(gathering).rejects.toThrow("DNS did not answer within 5 s");
      await jest.advanceTimersByTimeAsync(5_000);
      await settled;
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe("describeFailing before the service's first check", () => {
  const diagnosed = (kase: DiagnosisCase) =>
    ({ facts: {}, diagnosis: { case: kase, summary: "", action: "" } }) as unknown as CheckDiagnosis;

  it("leaves out what DNS already serves, and says so when it serves everything", () => {
    const checks = ["spf", "dkim", "mx"] as const;
    expect(
      describeFailing(notChecked(), checks, {
        spf: diagnosed("ok"),
        dkim: diagnosed("other-value"),
        mx: diagnosed("propagating"),
      }),
    ).toBe("DKIM (exists with another value), MX (still propagating)");
    expect(
      describeFailing(notChecked(), checks, {
        spf: diagnosed("ok"),
        dkim: diagnosed("ok"),
        mx: diagnosed("ok"),
      }),
    ).toBe("the service's check (DNS serves every record)");
    // Once the service has answered, its status leads, whatever DNS serves.
    expect(
      describeFailing({ ...notChecked(), spfStatus: "Missing" }, ["spf"], { spf: diagnosed("ok") }),
    ).toBe("SPF (Missing; served as expected)");
  });
});

describe("the failure's diagnosis after a DNS-first wait", () => {
  const answered = (label: string): CheckDiagnosis => ({
    facts: {
      expected: WORLD_DKIM,
      authoritative: [{ server: label, answer: { nxdomain: true } }],
      service: { status: null, text: null },
    },
    diagnosis: { case: "not-published", summary: label, action: "" },
  });
  /** A 10 s DNS-first wait for DKIM, which the service never passes, on a fake clock. */
  const waitWith = (diagnose: Diagnoser) => {
    return waitForChecks(async () => ({ ...ALL_CHECKS_OK, dkimStatus: "Missing" }), {
      checks: ["dkim"],
      timeoutMs: 10_000,
      pollIntervalMs: 5_000,
      maxPollIntervalMs: 5_000,
      log: () => undefined,
      ...steppedWaitClock().wait,
      dnsFirst,
      diagnose,
    });
  };

  it("is made in full even when the deadline poll's DNS was late (a busy machine), from the earlier answers", async () => {
    const calls: DiagnoseOptions[] = [];
    const outcome = await waitWith(async (_result, _failing, call = {}) => {
      calls.push(call);
      if (call.zone) return { dkim: answered("full") };
      if (calls.length === 3) throw new Error("DNS did not answer within 1 s"); // the deadline poll
      return { dkim: answered("brief") };
    });
    expect(calls.map((call) => Boolean(call.zone))).toEqual([false, false, false, true]);
    expect(outcome.diagnoses?.dkim?.diagnosis.summary).toBe("full");
  });

  it("is not asked again when the nameservers never answered in the wait", async () => {
    const calls: DiagnoseOptions[] = [];
    await waitWith(async (_result, _failing, call = {}) => {
      calls.push(call);
      const silent = answered("silent");
      silent.facts.authoritative = [{ server: "ns1", answer: { error: "timed out" } }];
      return { dkim: silent };
    });
    expect(calls.some((call) => call.zone)).toBe(false);
  });
});
