import type { DomainCheck } from "../../provider/client";
import { emailApiError } from "../../provider/client";
import { checkTable, formatDuration } from "../../provider/verification/report";
import { waitForChecks, WaitOptions } from "../../provider/verification/wait";
import { ALL_CHECKS_OK } from "../support/checks";

const OK: DomainCheck = ALL_CHECKS_OK;
const DKIM_MISSING: DomainCheck = {
  ...OK,
  dkimStatus: "Missing",
  dkimError: "No TXT records were returned for x",
};

/** A fake clock: sleeping moves time forward at once. */
function clock(options: Partial<WaitOptions> = {}) {
  let time = 0;
  const sleeps: number[] = [];
  const lines: string[] = [];
  const settings: WaitOptions = {
    checks: ["spf", "dkim", "mx", "returnPath"],
    timeoutMs: 60_000,
    pollIntervalMs: 5_000,
    maxPollIntervalMs: 30_000,
    log: (line) => lines.push(line),
    now: () => time,
    sleep: async (ms) => {
      sleeps.push(ms);
      time += ms;
    },
    random: () => 0.5,
    ...options,
  };
  return { settings, sleeps, lines, now: () => time };
}

describe("waitForChecks", () => {
  it("returns at the first poll where every requested check is OK", async () => {
    const results = [DKIM_MISSING, DKIM_MISSING, OK];
    const { settings, sleeps, lines } = clock();
    const outcome = await waitForChecks(async () => results.shift()!, settings);
    expect(outcome).toEqual({ result: OK, verified: true, polls: 3 });
    expect(sleeps).toEqual([5000, 7500]);
    expect(lines).toEqual(["waiting for DKIM (Missing); 1m00s left", "waiting for DKIM (Missing); 55s left"]);
  });

  it("grows the wait up to the cap, never sleeps past the deadline, and polls once more at it", async () => {
    const { settings, sleeps, now } = clock({ timeoutMs: 100_000 });
    let polls = 0;
    const outcome = await waitForChecks(async () => (polls++, DKIM_MISSING), settings);
    expect(outcome).toMatchObject({ verified: false, polls });
    expect(Math.max(...sleeps)).toBeLessThanOrEqual(30_000);
    expect(sleeps.slice(0, 5)).toEqual([5000, 7500, 11250, 16875, 25312.5]);
    expect(now()).toBe(100_000);
    expect(polls).toBe(sleeps.length + 1);
  });

  it("keeps jitter within the cap", async () => {
    const { settings, sleeps } = clock({ random: () => 0.999, timeoutMs: 200_000 });
    await waitForChecks(async () => DKIM_MISSING, settings);
    expect(Math.max(...sleeps)).toBeLessThanOrEqual(30_000);
  });

  it("counts only the checks asked for", async () => {
    const { settings } = clock({ checks: ["spf", "mx"] });
    expect(await waitForChecks(async () => DKIM_MISSING, settings)).toMatchObject({
      verified: true,
      polls: 1,
    });
  });

  it("treats a transient failure as 'not yet', and anything else as the end", async () => {
    const transient = emailApiError({
      operation: "domains/check",
      kind: "transient",
      serviceMessage: "down",
    });
    const answers: (DomainCheck | Error)[] = [transient, OK];
    const { settings, lines } = clock();
    const outcome = await waitForChecks(async () => {
      const next = answers.shift()!;
      if (next instanceof Error) throw next;
      return next;
    }, settings);
    expect(outcome).toMatchObject({ verified: true, polls: 2 });
    expect(lines[0]).toBe(
      "the service did not answer; 1m00s left (last check: domains/check failed (transient): down.)",
    );

    const gone = emailApiError({
      operation: "domains/check",
      kind: "not-found",
      code: "DomainNotFound",
      serviceMessage: "No domain",
    });
    await expect(waitForChecks(async () => Promise.reject(gone), clock().settings)).rejects.toBe(gone);
  });
});

describe("report", () => {
  it("formats the table with every requested check", () => {
    expect(checkTable(DKIM_MISSING, ["spf", "dkim"])).toBe(
      [
        "  check   status    service says",
        "  SPF     OK",
        "  DKIM    Missing   No TXT records were returned for x",
      ].join("\n"),
    );
    expect(checkTable({ ...OK, mxStatus: null }, ["mx"])).toBe(
      ["  check   status        service says", "  MX      not checked"].join("\n"),
    );
  });

  it("formats durations", () => {
    expect(formatDuration(245_000)).toBe("4m05s");
    expect(formatDuration(12_400)).toBe("12s");
    expect(formatDuration(-5)).toBe("0s");
  });
});
