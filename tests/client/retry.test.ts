import fc from "fast-check";
import { backoffDelay, defaultRetryPolicy } from "../../provider/client/retry";

describe("backoffDelay", () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1000 };

  it("doubles from the base with equal jitter (half fixed, half random)", () => {
    expect(backoffDelay(1, policy, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, () => 0.999999)).toBe(100);
    expect(backoffDelay(2, policy, () => 0)).toBe(100);
    expect(backoffDelay(3, policy, () => 0)).toBe(200);
  });

  it("never exceeds the cap, never goes below half of it once reached", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (retry, r) => {
          const delay = backoffDelay(retry, policy, () => r);
          return (
            delay <= policy.maxDelayMs && delay >= Math.min(policy.maxDelayMs, 100 * 2 ** (retry - 1)) / 2 - 1
          );
        },
      ),
    );
  });

  it("waits at least what Retry-After asks", () => {
    expect(backoffDelay(1, policy, () => 0, 3000)).toBe(3000);
    expect(backoffDelay(5, policy, () => 1, 10)).toBe(1000);
  });

  it("spreads retries beyond Retry-After: clients refused at one instant do not all come back at one", () => {
    // Retry-After: 1, as a service that answers in whole seconds sends it
    const delays = [0, 0.25, 0.5, 0.75, 0.999].map((r) => backoffDelay(1, policy, () => r, 1000));
    expect(new Set(delays).size).toBe(delays.length);
    expect(Math.min(...delays)).toBe(1000);
    expect(Math.max(...delays)).toBeGreaterThanOrEqual(1400);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.integer({ min: 0, max: 120_000 }),
        (retry, r, retryAfterMs) => {
          const delay = backoffDelay(retry, policy, () => r, retryAfterMs);
          // never before Retry-After; the jitter on top within half the cap
          return (
            delay >= retryAfterMs && delay <= retryAfterMs + Math.max(policy.maxDelayMs, retryAfterMs / 2)
          );
        },
      ),
    );
  });

  it("has sane defaults", () => {
    expect(defaultRetryPolicy()).toEqual({
      maxAttempts: 6,
      baseDelayMs: 250,
      maxDelayMs: 8000,
      budgetMs: 60000,
    });
  });
});
