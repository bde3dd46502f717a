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

  it("has sane defaults", () => {
    expect(defaultRetryPolicy()).toEqual({
      maxAttempts: 6,
      baseDelayMs: 250,
      maxDelayMs: 8000,
      budgetMs: 60000,
    });
  });
});
