import { judgeReceivers, serviceMail } from "../../provider/receivers";
import type { ReceiversJudgement } from "../../provider/receivers";
import { receiversMessage } from "../../provider/verification/receivers-report";
import { waitForChecks, WaitOptions } from "../../provider/verification/wait";
import { ALL_CHECKS_OK } from "../support/checks";
import { steppedWaitClock } from "../support/fake-clock";
import { publishedAsAsked, serviceRecords, tableResolver } from "../support/receivers-world";

/**
 * The wait's last step (verification/receivers-step.ts), on a fake clock: once the service's checks
 * pass, receivers' judgement decides. A posture they reject ends the wait at once (polling cannot
 * change it), a warning lets it pass, and a judgement DNS cannot answer is polled again, never
 * taken for a pass.
 */

const DOMAIN = "mail.example.com";

function twoSpfRecords() {
  const table = publishedAsAsked(DOMAIN);
  table[DOMAIN].TXT!.push("v=spf1 include:_spf.google.com ~all");
  return table;
}

/** A judge over a table that may change between calls; counts its calls. */
function judgeOver(tables: () => Parameters<typeof tableResolver>) {
  const mail = serviceMail(serviceRecords(DOMAIN))!;
  const calls = { count: 0 };
  const judge = (): Promise<ReceiversJudgement> => {
    calls.count += 1;
    return judgeReceivers(mail, tableResolver(...tables()));
  };
  return { judge, calls };
}

async function wait(
  judge: () => Promise<ReceiversJudgement>,
  whenRejected: "fail" | "warn",
  extra: Partial<WaitOptions> = {},
) {
  const clock = steppedWaitClock();
  let serviceChecks = 0;
  const outcome = await waitForChecks(
    async () => {
      serviceChecks += 1;
      return ALL_CHECKS_OK;
    },
    {
      ...clock.wait,
      checks: ["spf", "dkim", "mx", "returnPath"],
      timeoutMs: 60_000,
      pollIntervalMs: 5_000,
      maxPollIntervalMs: 5_000,
      log: () => undefined,
      receivers: { judge, whenRejected },
      ...extra,
    },
  );
  return { outcome, serviceChecks, elapsed: clock.time };
}

describe("once the service's checks pass, receivers decide", () => {
  it("accepted: verified at the first poll, the verdicts kept", async () => {
    const { judge, calls } = judgeOver(() => [publishedAsAsked(DOMAIN)]);
    const { outcome, serviceChecks } = await wait(judge, "fail");
    expect(outcome).toEqual(expect.objectContaining({ verified: true, receiversAccepted: true }));
    expect([outcome.receivers?.spf, outcome.receivers?.dkim, outcome.receivers?.dmarc]).toEqual([
      "pass",
      "pass",
      "none",
    ]);
    expect([serviceChecks, calls.count]).toEqual([1, 1]);
  });

  it("rejected twice in a row, a poll apart: not verified then (polling does not change a posture), with the findings", async () => {
    const { judge, calls } = judgeOver(() => [twoSpfRecords()]);
    const { outcome, serviceChecks, elapsed } = await wait(judge, "fail");
    expect(outcome).toEqual(expect.objectContaining({ verified: false, receiversAccepted: false }));
    expect([serviceChecks, calls.count, elapsed]).toEqual([2, 2, 5_000]);
    const message = receiversMessage(DOMAIN, outcome);
    const flat = message.replace(/\s+/g, " ");
    expect(flat).toMatch(
      new RegExp(
        `^${DOMAIN} passed the service's checks, but receivers would not accept its mail \\(SPF fail, DKIM pass, DMARC none\\): SPF: TXT ${DOMAIN} `,
      ),
    );
    expect(flat).toContain(`to do: Keep one SPF record at ${DOMAIN}: merge the others into it`);
    expect(flat).toContain('set verification.whenReceiversReject to "warn"');
    for (const line of message.split("\n")) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it("a rejection seen once (a nameserver still serving a record just replaced) is judged again, and passes", async () => {
    let first = true;
    const { judge, calls } = judgeOver(() => {
      const table = first ? twoSpfRecords() : publishedAsAsked(DOMAIN);
      first = false;
      return [table];
    });
    const { outcome } = await wait(judge, "fail");
    expect(outcome).toEqual(expect.objectContaining({ verified: true, receiversAccepted: true }));
    expect(calls.count).toBe(2);
  });

  it('whenRejected "warn": verified, the rejection kept for the warning', async () => {
    const { judge } = judgeOver(() => [twoSpfRecords()]);
    const { outcome } = await wait(judge, "warn");
    expect(outcome).toEqual(expect.objectContaining({ verified: true, receiversAccepted: false }));
  });

  it("DNS that does not answer receivers is polled again, and passes once it answers", async () => {
    let answered = false;
    const { judge, calls } = judgeOver(() => [
      publishedAsAsked(DOMAIN),
      answered ? [] : [`_dmarc.${DOMAIN}`],
    ]);
    const lines: string[] = [];
    const flaky = async () => {
      const judgement = await judge();
      answered = calls.count >= 2;
      return judgement;
    };
    const { outcome, serviceChecks } = await wait(flaky, "fail", { log: (line) => lines.push(line) });
    expect(outcome).toEqual(expect.objectContaining({ verified: true, receiversAccepted: true }));
    expect([serviceChecks, calls.count]).toEqual([3, 3]);
    expect(lines[0]).toMatch(/^the service's checks pass; waiting for DNS to answer receivers' lookups; /);
  });

  it("DNS that never answers receivers: not verified at the deadline, never a pass", async () => {
    const { judge } = judgeOver(() => [publishedAsAsked(DOMAIN), [`_dmarc.${DOMAIN}`]]);
    const { outcome } = await wait(judge, "fail", { timeoutMs: 20_000 });
    expect(outcome.verified).toBe(false);
    expect(outcome.receiversAccepted).toBeUndefined();
    expect(receiversMessage(DOMAIN, outcome).replace(/\s+/g, " ")).toContain(
      "receivers' judgement could not be made (SPF pass, DKIM pass, DMARC unknown): DMARC: TXT _dmarc",
    );
  });

  it('whenRejected "warn" and DNS that never answers: polled to the deadline, then verified with the warning', async () => {
    const { judge, calls } = judgeOver(() => [publishedAsAsked(DOMAIN), [`_dmarc.${DOMAIN}`]]);
    const { outcome, elapsed } = await wait(judge, "warn", { timeoutMs: 20_000 });
    expect(outcome.verified).toBe(true);
    expect(outcome.receiversAccepted).toBeUndefined();
    expect(calls.count).toBeGreaterThan(1);
    expect(elapsed).toBeGreaterThanOrEqual(20_000);
  });

  it("a judgement that throws is 'cannot tell', not a crash", async () => {
    const { outcome } = await wait(() => Promise.reject(new Error("resolver exploded")), "fail", {
      timeoutMs: 10_000,
    });
    expect(outcome.verified).toBe(false);
    expect(outcome.receiversError?.message).toBe("resolver exploded");
  });
});
