import type { DomainCheck } from "../../provider/client";
import { waitForChecks } from "../../provider/verification/wait";
import { ALL_CHECKS_OK } from "../support/checks";

/**
 * A run stopped while a verification's check request is under way: the check answers "not yet"
 * after the stop, and the wait must end then without leaving its sleep's timer behind (a timer of
 * up to the poll interval, which keeps `node --test` and jest's workers from exiting).
 */

const DKIM_MISSING: DomainCheck = { ...ALL_CHECKS_OK, dkimStatus: "Missing", dkimError: "no TXT record" };

// A fake clock holds the timer the wait leaves, if any, so that a failure leaves no real one running.
beforeEach(() => jest.useFakeTimers({ doNotFake: ["nextTick", "queueMicrotask", "setImmediate"] }));
afterEach(() => {
  jest.clearAllTimers();
  jest.useRealTimers();
});

describe("a wait whose signal aborts while a check is under way", () => {
  it("ends with the signal's reason and keeps no timer", async () => {
    const controller = new AbortController();
    const wait = waitForChecks(
      async () => {
        controller.abort(new Error("stopped by the test kit: the program failed"));
        return DKIM_MISSING;
      },
      {
        checks: ["spf", "dkim", "mx", "returnPath"],
        log: () => undefined,
        pollIntervalMs: 3_600_000,
        maxPollIntervalMs: 3_600_000,
        timeoutMs: 7_200_000,
        signal: controller.signal,
      },
    );
    await expect(wait).rejects.toThrow("stopped by the test kit: the program failed");
    expect(jest.getTimerCount()).toBe(0);
  });
});
