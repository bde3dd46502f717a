import { judgeReceivers, serviceMail } from "../../provider/receivers";
import type { ReceiversJudgement } from "../../provider/receivers";
import { waitForChecks, WaitOptions } from "../../provider/verification/wait";
import { ALL_CHECKS_OK } from "../support/checks";
import { steppedWaitClock } from "../support/fake-clock";
import { DnsTable, publishedAsAsked, serviceRecords, tableResolver } from "../support/receivers-world";

/**
 * Adversarial review of the wait's last step (receivers-step.ts, wait.ts) on a fake clock: DNS
 * that answers late, and DNS that changes while the wait runs (the same `up` wrote the records).
 */

const DOMAIN = "mail.example.com";

function judgeSequence(tables: Array<[DnsTable, string[]]>) {
  const mail = serviceMail(serviceRecords(DOMAIN))!;
  let call = 0;
  return (): Promise<ReceiversJudgement> => {
    const [table, failing] = tables[Math.min(call++, tables.length - 1)];
    return judgeReceivers(mail, tableResolver(table, failing));
  };
}

async function wait(
  judge: () => Promise<ReceiversJudgement>,
  whenRejected: "fail" | "warn",
  extra: Partial<WaitOptions> = {},
) {
  const clock = steppedWaitClock();
  return waitForChecks(async () => ALL_CHECKS_OK, {
    ...clock.wait,
    checks: ["spf", "dkim", "mx", "returnPath"],
    timeoutMs: 60_000,
    pollIntervalMs: 5_000,
    maxPollIntervalMs: 5_000,
    log: () => undefined,
    receivers: { judge, whenRejected },
    ...extra,
  });
}

describe("the receivers' step while DNS settles", () => {
  it('"warn": a DNS failure at the first judgement is polled again within the timeout, not settled as accepted: null', async () => {
    const judge = judgeSequence([
      [publishedAsAsked(DOMAIN), [`_dmarc.${DOMAIN}`]],
      [publishedAsAsked(DOMAIN), []],
    ]);
    const outcome = await wait(judge, "warn");
    expect(outcome.receiversAccepted).toBe(true);
  });

  it('"fail": a rejection served by a nameserver that still lags (the second SPF record the same `up` removed) is judged again before the timeout', async () => {
    const stale = publishedAsAsked(DOMAIN);
    stale[DOMAIN].TXT!.push("v=spf1 include:_spf.old.example.net ~all");
    const judge = judgeSequence([
      [stale, []],
      [publishedAsAsked(DOMAIN), []],
    ]);
    const outcome = await wait(judge, "fail");
    expect(outcome).toEqual(expect.objectContaining({ verified: true, receiversAccepted: true }));
  });
});
