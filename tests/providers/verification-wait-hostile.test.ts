import { createClient } from "../../provider/client";
import { forgetRateLimits, forgetSharedLists } from "../../provider/client/process-runtime";
import { verificationProvider } from "../../provider/dynamic";
import { forgetConfig } from "../../provider/dynamic/configured";
import { setClientDefaults } from "../../provider/dynamic/connection";
import { configureRequest, failure, verificationInputs } from "../support/providers";
import { envelope, startScriptedServer } from "../support/scripted-server";

/**
 * The verification wait against a busy, rate-limited service: its `timeoutSeconds` must hold
 * whatever the service and the process's other requests do. Time is simulated (a Date.now that
 * moves when the service answers, or jest's fake timers), never measured.
 */
const KEY = "ScriptedKey0000000000001";
const inputs = verificationInputs;

async function configureForServer(url: string) {
  forgetConfig();
  forgetRateLimits();
  forgetSharedLists();
  setClientDefaults({ retry: { baseDelayMs: 5, maxDelayMs: 20 } });
  await verificationProvider.configure(
    configureRequest({ "emailDelivery:baseUrl": url, "emailDelivery:apiKey": KEY }),
  );
}

let logSpy: jest.SpyInstance;
beforeEach(() => {
  logSpy = jest.spyOn(console, "log").mockImplementation(() => undefined);
});
afterEach(() => {
  logSpy.mockRestore();
  jest.restoreAllMocks();
  jest.useRealTimers();
});

describe("verification wait against a throttling service", () => {
  it("ends at its timeout when every check is refused with 429: a poll does not retry 429s for the client's 60 s budget", async () => {
    // Every answer is a 429 asking for no wait, and takes the service 2 s (it is overloaded).
    const server = await startScriptedServer([
      { status: 429, body: "slow down", headers: { "Retry-After": "0" } },
    ]);
    const realNow = Date.now.bind(Date);
    jest.spyOn(Date, "now").mockImplementation(() => realNow() + 2000 * server.received.length);
    try {
      await configureForServer(server.url);
      const started = Date.now();
      const error = await failure(verificationProvider.create(inputs(51, { timeoutSeconds: 10 })));
      const tookMs = Date.now() - started;
      expect(error.message).toContain("could not be verified");
      // At most the timeout, plus one bounded check request (a quarter of 10 s) and one answer.
      // Today the first poll alone retries its 429s until the client's 60 s budget is spent.
      expect(tookMs).toBeLessThanOrEqual(10_000 + 2_500 + 2_000 + 1_000);
    } finally {
      await server.close();
    }
  });

  it("ends at its timeout while the process's other requests to the service fill the rate limiter's in-flight cap", async () => {
    // 32 requests of other resources (say, a refresh's domain checks, 60 s timeout each) hang at
    // the service; then the verification's poll. Neither the poll's request bound (2.5 s here) nor
    // the wait's deadline covers the time its request waits for a place in flight.
    const server = await startScriptedServer([
      ...Array(32).fill({ hang: true }),
      { status: 200, body: envelope({ code: "SomethingNew" }, "error") },
    ]);
    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] });
    const realTick = () => new Promise<void>((resolve) => setImmediate(resolve));
    const untilReal = async (condition: () => boolean) => {
      for (let i = 0; i < 20_000 && !condition(); i++) await realTick();
      expect(condition()).toBe(true);
    };
    try {
      await configureForServer(server.url);
      const others = createClient({
        baseUrl: server.url,
        apiKey: KEY,
        checkTimeoutMs: 60_000,
        retry: { maxAttempts: 1 },
      });
      const slow = Array.from({ length: 32 }, (_, i) => others.checkDomain(i + 1).catch(() => undefined));
      await untilReal(() => server.received.length === 32);

      let settled = false;
      const created = verificationProvider.create(inputs(52, { timeoutSeconds: 10 })).then(
        () => void (settled = true),
        () => void (settled = true),
      );
      // 30 s of simulated time: the wait's 10 s, a check request's bound (2.5 s) and room to spare.
      for (let second = 0; second < 30; second++) {
        jest.advanceTimersByTime(1000);
        for (let i = 0; i < 20; i++) await realTick();
      }
      // Today the poll is still waiting for one of the 32 places in flight: it never reached the service.
      const settledAt30s = settled;

      // Clean up: the others time out at 60 s, and the queued poll goes out at last.
      jest.advanceTimersByTime(31_000);
      await untilReal(() => settled);
      await Promise.all(slow);
      await created;
      expect(settledAt30s).toBe(true);
    } finally {
      jest.useRealTimers();
      await server.close();
    }
  });
});
