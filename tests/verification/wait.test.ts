import type { DomainCheck } from "../../provider/client";
import { EmailApiError, interpretAnswer } from "../../provider/client";
import { checkVerificationInputs, VerificationInputs } from "../../provider/inputs";
import { checkRows, formatDuration } from "../../provider/verification/report";
import { checkTable } from "../../provider/verification/report-text";
import { checkRequestTimeout, waitForChecks, WaitOptions, waitTimes } from "../../provider/verification/wait";
import { seededRandom } from "../../emulator/http/faults";
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
  /** A check request that takes `ms` (the service is slow, or the request hangs until its timeout). */
  const advance = (ms: number) => void (time += ms);
  return { settings, sleeps, lines, now: () => time, advance };
}

/** The error the client makes of an answer, as it came off the wire. */
function answer(httpStatus: number, body: string): EmailApiError {
  const interpreted = interpretAnswer({ operation: "domains/check", httpStatus, body }, []);
  if (interpreted.ok) throw new Error("expected a failure");
  return interpreted.error;
}

/** A check that gives each answer in turn (throwing errors), then the last one forever. */
function scripted(answers: (DomainCheck | Error)[]) {
  return async () => {
    const next = answers.length > 1 ? answers.shift()! : answers[0];
    if (next instanceof Error) throw next;
    return next;
  };
}

describe("waitForChecks", () => {
  it("returns at the first poll where every requested check is OK", async () => {
    const results = [DKIM_MISSING, DKIM_MISSING, OK];
    const { settings, sleeps, lines } = clock();
    const outcome = await waitForChecks(async () => results.shift()!, settings);
    expect(outcome).toEqual({ result: OK, verified: true, polls: 3, serviceChecks: 3 });
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

  it("treats a transient failure as 'not yet', and the domain gone as the end", async () => {
    const transient = new EmailApiError({
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

    const gone = new EmailApiError({
      operation: "domains/check",
      kind: "not-found",
      code: "DomainNotFound",
      serviceMessage: "No domain",
    });
    await expect(waitForChecks(async () => Promise.reject(gone), clock().settings)).rejects.toBe(gone);
  });
});

describe("what ends the wait", () => {
  it("keeps polling through answers that say nothing definite, until the records pass", async () => {
    const notYet = [
      answer(200, JSON.stringify({ status: "error", time: 0, flags: {}, data: { code: "SomethingNew" } })),
      answer(502, "<html><body><h1>502 Bad Gateway</h1></body></html>"),
      answer(200, "<!doctype html><title>Maintenance</title>"),
      answer(200, JSON.stringify({ hello: "a different API" })),
      answer(404, "<html>Not Found</html>"),
      answer(409, ""),
    ];
    const { settings, lines } = clock({ timeoutMs: 600_000 });
    const outcome = await waitForChecks(scripted([...notYet, DKIM_MISSING, OK]), settings);
    expect(outcome).toMatchObject({ verified: true, polls: notYet.length + 2 });
    expect(lines[0]).toMatch(/^the service did not answer; .* \(last check: .*SomethingNew/);
  });

  it.each([
    [
      "the key is refused (InvalidServerAPIKey)",
      answer(200, JSON.stringify({ status: "error", data: { code: "InvalidServerAPIKey" } })),
    ],
    ["the key is refused (HTTP 401)", answer(401, "")],
    [
      "the domain is gone",
      answer(200, JSON.stringify({ status: "error", data: { code: "DomainNotFound" } })),
    ],
    [
      "a parameter is refused",
      answer(
        200,
        JSON.stringify({ status: "parameter-error", data: { message: "`id` parameter is required" } }),
      ),
    ],
    [
      "validation failed",
      answer(422, JSON.stringify({ status: "validation-error", data: { errors: ["Id is invalid"] } })),
    ],
  ])("ends at once when %s", async (_case, definite) => {
    const { settings } = clock();
    await expect(waitForChecks(scripted([definite, OK]), settings)).rejects.toBe(definite);
  });

  it("times out with no result when the service never answered, keeping the last error", async () => {
    const down = answer(502, "<html>Bad Gateway</html>");
    const { settings } = clock({ timeoutMs: 30_000 });
    const outcome = await waitForChecks(scripted([down]), settings);
    expect(outcome).toMatchObject({ verified: false, result: undefined, lastError: down });
    expect(outcome.polls).toBeGreaterThan(1);
  });
});

describe("time spent per check request", () => {
  it("abandons a hung request well before the timeout and keeps polling", async () => {
    const { settings, advance, now } = clock({ timeoutMs: 600_000 });
    const bounds: number[] = [];
    const outcome = await waitForChecks(async (requestTimeoutMs) => {
      bounds.push(requestTimeoutMs);
      if (bounds.length > 1) return OK;
      advance(requestTimeoutMs); // hangs until the client gives up on it
      throw new EmailApiError({
        operation: "domains/check",
        kind: "transient",
        code: "ETIMEDOUT",
        serviceMessage: `no answer within ${requestTimeoutMs} ms`,
      });
    }, settings);
    expect(outcome).toMatchObject({ verified: true, polls: 2 });
    expect(now()).toBeLessThanOrEqual(60_000);
  });

  it("bounds each request to 30 s and a quarter of the timeout, within the time left, never under 1 s", () => {
    expect(checkRequestTimeout(600_000, 600_000)).toBe(30_000);
    expect(checkRequestTimeout(60_000, 60_000)).toBe(15_000);
    expect(checkRequestTimeout(8_000, 8_000)).toBe(2_000);
    expect(checkRequestTimeout(600_000, 12_000)).toBe(12_000);
    expect(checkRequestTimeout(600_000, 0)).toBe(1_000);
    expect(checkRequestTimeout(2_000, 2_000)).toBe(1_000);
  });
});

describe("detection delay with the default settings", () => {
  it("sees records within 5 s (90th percentile) of their becoming valid, at any moment in the first 2 minutes", async () => {
    const inputs = checkVerificationInputs({ domainId: 1 }).inputs as unknown as VerificationInputs;
    const random = seededRandom(20240601);
    const delays: number[] = [];
    for (let run = 0; run < 500; run++) {
      const validAt = random() * 120_000;
      const { settings, now } = clock({ ...waitTimes(inputs), random });
      const outcome = await waitForChecks(async () => (now() >= validAt ? OK : DKIM_MISSING), settings);
      expect(outcome.verified).toBe(true);
      delays.push(now() - validAt);
    }
    delays.sort((a, b) => a - b);
    const p90 = delays[Math.ceil(delays.length * 0.9) - 1];
    expect(p90).toBeLessThanOrEqual(5_000);
  });
});

describe("report", () => {
  it("formats the table with every requested check", () => {
    expect(checkTable(checkRows(DKIM_MISSING, ["spf", "dkim"])).join("\n")).toBe(
      [
        "  check   status    service says",
        "  SPF     OK",
        "  DKIM    Missing   No TXT records were returned for x",
      ].join("\n"),
    );
    expect(checkTable(checkRows({ ...OK, mxStatus: null }, ["mx"])).join("\n")).toBe(
      ["  check   status        service says", "  MX      not checked"].join("\n"),
    );
  });

  it("formats durations", () => {
    expect(formatDuration(245_000)).toBe("4m05s");
    expect(formatDuration(12_400)).toBe("12s");
    expect(formatDuration(-5)).toBe("0s");
  });
});

describe("waitForChecks stopped by its signal (the test kit's run stop)", () => {
  it("ends a sleep between polls at once with the signal's reason, and polls no more", async () => {
    const controller = new AbortController();
    let polls = 0;
    const sleeping = new Promise<void>(() => undefined); // a sleep that would never end by itself
    const wait = waitForChecks(
      async () => {
        polls++;
        return DKIM_MISSING;
      },
      { ...clock().settings, sleep: () => sleeping, signal: controller.signal },
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(polls).toBe(1);
    controller.abort(new Error("stopped: the run ended"));
    await expect(wait).rejects.toThrow("stopped: the run ended");
    expect(polls).toBe(1);
  });

  it("does not poll when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stopped before it began"));
    let polls = 0;
    const wait = waitForChecks(
      async () => {
        polls++;
        return OK;
      },
      { ...clock().settings, signal: controller.signal },
    );
    await expect(wait).rejects.toThrow("stopped before it began");
    expect(polls).toBe(0);
  });

  it("clears the real sleep's timer, so a stopped wait keeps nothing pending", async () => {
    const controller = new AbortController();
    const { settings } = clock();
    const { sleep: _fake, now: _now, ...real } = settings; // the real sleep and clock
    const wait = waitForChecks(async () => DKIM_MISSING, {
      ...real,
      pollIntervalMs: 3_600_000,
      maxPollIntervalMs: 3_600_000,
      timeoutMs: 7_200_000,
      signal: controller.signal,
    });
    await new Promise((resolve) => setImmediate(resolve));
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    controller.abort(new Error("stopped"));
    await expect(wait).rejects.toThrow("stopped");
    const timersAfter = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    expect(timersAfter).toBe(timersBefore - 1);
  });
});
