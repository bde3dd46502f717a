import {
  AdaptiveRateLimiter,
  AdaptiveRateLimiterOptions,
  outcomeOf,
  Permit,
  RequestOutcome,
} from "../../provider/client/adaptive-rate-limiter";
import { FakeClock, settle } from "../support/fake-clock";
import { simulate } from "../support/rate-limit-simulation";

/** The limiter on a fake clock, and when each request it let go was let go. */
function limiterOn(options: AdaptiveRateLimiterOptions = {}) {
  const clock = new FakeClock();
  const limiter = new AdaptiveRateLimiter(options, clock);
  const startedAt: number[] = [];
  const permits: Permit[] = [];
  const request = () =>
    limiter.acquire().then((permit) => {
      startedAt.push(clock.now());
      permits.push(permit);
      return permit;
    });
  /** Sends `count` requests one after another, each when the limiter lets it, answered at once. */
  const answered = async (count: number, outcome: RequestOutcome) => {
    for (let i = 0; i < count; i++) {
      const permit = request();
      await clock.run();
      (await permit).release(outcome);
    }
  };
  return { clock, limiter, startedAt, permits, request, answered };
}

/** Gaps between consecutive times. */
const gaps = (times: number[]) => times.slice(1).map((time, i) => time - times[i]);

describe("AdaptiveRateLimiter", () => {
  it("before any 429 lets requests go at once up to the in-flight cap, and sets no timer", async () => {
    const { clock, startedAt, permits, request } = limiterOn({ maxInFlight: 4 });
    for (let i = 0; i < 6; i++) void request();
    await settle();
    expect(startedAt).toEqual([0, 0, 0, 0]);
    permits[0].release("accepted");
    permits[1].release("other");
    await settle();
    expect(startedAt).toEqual([0, 0, 0, 0, 0, 0]);
    expect(clock.pending()).toBe(0);
  });

  it("acquireWithin gives up after its wait, leaving its place to the next request", async () => {
    const { clock, limiter } = limiterOn({ maxInFlight: 1 });
    const held = await limiter.acquire();
    const outcomes: string[] = [];
    void limiter.acquireWithin(100).then((permit) => outcomes.push(permit ? "sent" : "gave up"));
    void limiter.acquireWithin(1000).then((permit) => outcomes.push(permit ? "sent" : "gave up"));
    await clock.run(100);
    expect(outcomes).toEqual(["gave up"]);
    held.release("accepted"); // the place goes to the request still waiting, not the one that gave up
    await settle();
    expect(outcomes).toEqual(["gave up", "sent"]);
    expect(clock.pending()).toBe(0);
  });

  it("after a 429 paces requests at what the service accepted over the last second", async () => {
    const { clock, limiter, startedAt, request, answered } = limiterOn();
    await answered(20, "accepted");
    await answered(1, "throttled");
    expect(limiter.rate()).toBe(20);
    startedAt.length = 0;
    for (let i = 0; i < 5; i++) void request();
    await clock.run();
    // 50 ms apart, the first one interval after the 429 (the service's bucket is empty then);
    // the rate grows a little while probing (cubic: +0.4 % after 250 ms).
    for (const gap of gaps([0, ...startedAt])) expect(gap).toBeGreaterThan(49.5);
    for (const gap of gaps([0, ...startedAt])) expect(gap).toBeLessThanOrEqual(50);
  });

  it("a later 429 measures what was accepted since the one before, and paces a margin below it", async () => {
    const { clock, limiter, answered } = limiterOn({ margin: 0.05 });
    await answered(20, "accepted");
    await answered(1, "throttled"); // at 0: the first guess, 20/s
    for (let i = 0; i < 8; i++) {
      await clock.run(clock.now() + 100);
      await answered(1, "accepted"); // 8 accepted by 800 ms
    }
    await answered(1, "throttled"); // when the pace let it go, just after 800 ms
    expect(clock.now()).toBeGreaterThan(800);
    expect(limiter.rate()).toBeCloseTo(((8 * 1000) / clock.now()) * 0.95);
  });

  it("429s soon after a decision answer requests sent before it: they change nothing", async () => {
    const { clock, limiter, request, answered } = limiterOn({ reactMs: 500 });
    await answered(20, "accepted");
    const sentBefore = await Promise.all(Array.from({ length: 5 }, request));
    await answered(1, "throttled"); // at 0
    await clock.run(400);
    sentBefore.forEach((permit) => permit.release("throttled"));
    expect(limiter.rate(0)).toBe(20);
  });

  it("late answers to the burst the first 429 ended raise its guess", async () => {
    const { limiter, request } = limiterOn();
    const burst = await Promise.all(Array.from({ length: 30 }, request));
    burst.slice(0, 10).forEach((permit) => permit.release("accepted"));
    (await request()).release("throttled");
    expect(limiter.rate(0)).toBe(10);
    burst.slice(10).forEach((permit) => permit.release("accepted"));
    expect(limiter.rate(0)).toBe(30);
  });

  it("never paces below its floor, even when the service accepted nothing", async () => {
    const { limiter, answered } = limiterOn({ minRate: 2 });
    await answered(1, "throttled");
    expect(limiter.rate()).toBe(2);
  });

  it("without 429s the rate grows, and pacing stops once it is past recoverAtRate", async () => {
    const { clock, limiter, startedAt, request, answered } = limiterOn({
      maxInFlight: 100,
      growthMs: 4000,
      probeGrowthMs: 1000,
      recoverAtRate: 1000,
    });
    await answered(20, "accepted");
    await answered(1, "throttled");
    expect(limiter.rate(1000)).toBeCloseTo(40); // probing: doubles in probeGrowthMs
    await clock.run(clock.now() + 3000);
    expect(limiter.rate()).toBeCloseTo(20 * (1 + 3 ** 3));
    await clock.run(clock.now() + 1000);
    expect(limiter.rate()).toBeUndefined();
    startedAt.length = 0;
    for (let i = 0; i < 50; i++) void request();
    await settle();
    expect(startedAt).toEqual(Array(50).fill(clock.now()));
  });

  it("learns from 429s only: a 429 asking for no wait, a 503, and no answer, teach nothing", () => {
    expect(outcomeOf(200, undefined)).toBe("accepted");
    expect(outcomeOf(503, 1000)).toBe("other"); // an outage says nothing of the rate
    expect(outcomeOf(500, undefined)).toBe("accepted");
    expect(outcomeOf(429, 1000)).toBe("throttled");
    expect(outcomeOf(429, undefined)).toBe("throttled");
    expect(outcomeOf(429, 0)).toBe("other");
  });
});

/**
 * The limiter and the client's 429 retries against the emulator's token bucket, in simulated
 * time (tests/support/rate-limit-simulation.ts): 2 ms answers, operations started at once, the
 * default retry policy. Ideal: one request per operation; the first `burst` at once, the rest at
 * the limit's rate.
 */
describe("AdaptiveRateLimiter against a token bucket (simulated)", () => {
  const idealMs = (operations: number, rate: number, burst: number) => ((operations - burst) / rate) * 1000;

  it("200 operations at 20/s, burst 20: none fails, ≤ 1.25× the requests, ≤ 1.2× the time", async () => {
    const run = await simulate({ operations: 200, limit: { requestsPerSecond: 20, burst: 20 } });
    expect(run.failures).toBe(0);
    expect(run.requests).toBeLessThanOrEqual(1.25 * 200);
    expect(run.ms).toBeLessThanOrEqual(1.2 * idealMs(200, 20, 20));
  });

  it("8 at a time (the engine's default on 2 cores): fewer 429s still", async () => {
    const run = await simulate({
      operations: 200,
      limit: { requestsPerSecond: 20, burst: 20 },
      limiter: { maxInFlight: 8 },
    });
    expect(run.failures).toBe(0);
    expect(run.requests).toBeLessThanOrEqual(1.1 * 200);
    expect(run.ms).toBeLessThanOrEqual(1.2 * idealMs(200, 20, 20));
  });

  it.each([
    // rate, burst, operations: a burst worth less than a second, or much more
    [100, 20, 200],
    [50, 10, 1000],
    [5, 50, 200],
  ])(
    "%d/s, burst %d, %d operations: none fails, ≤ 1.4× the requests, ≤ 2× the time",
    async (rate, burst, n) => {
      const run = await simulate({ operations: n, limit: { requestsPerSecond: rate, burst } });
      expect(run.failures).toBe(0);
      expect(run.requests).toBeLessThanOrEqual(1.4 * n);
      expect(run.ms).toBeLessThanOrEqual(2 * idealMs(n, rate, burst));
    },
  );

  it("without a limit: one request each, and nothing waits", async () => {
    const run = await simulate({ operations: 200 });
    expect(run).toMatchObject({ requests: 200, throttled: 0, failures: 0 });
    // 200 at 32 in flight, 2 ms each: 7 rounds, as without any limiter
    expect(run.ms).toBe(Math.ceil(200 / 32) * 2);
  });

  it("a service refusing a tenth of requests at random still gets every operation done", async () => {
    const run = await simulate({ operations: 200, randomThrottle: { share: 0.1, retryAfterSeconds: 1 } });
    expect(run.failures).toBe(0);
    expect(run.requests).toBeLessThanOrEqual(1.25 * 200);
  });
});
