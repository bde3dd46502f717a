import fc from "fast-check";
import {
  backoffDelay,
  cloudflareClientRetries,
  cloudflareClientRetry,
  cloudflareProviderRetries,
  cloudflareProviderRetry,
  defaultRetryPolicy,
  emailApiRetries,
  emailApiWaits,
  heardRetryAfter,
  isRetryable,
  parseRetryAfter,
  waitBeforeRetry,
} from "../../provider/client/retry";

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

describe("parseRetryAfter", () => {
  it("reads seconds, fractions and HTTP dates", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter("0.25")).toBe(250);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
  });
  it("ignores what it cannot read", () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter("-1")).toBeUndefined();
    // V8's Date.parse reads these as dates (the years 3000, 2001 and 2050): a wait past any budget.
    const now = Date.parse("2026-01-01T00:00:00Z");
    for (const garbled of ["soon 3000", "a 5", "May 2050", "2099-01-01", "Thu, 01 Jan 2099 00:00:00"])
      expect(parseRetryAfter(garbled, now)).toBeUndefined();
  });
});

describe("isRetryable", () => {
  it("retries what each client retries: a lost answer always, 5xx always, the listed statuses", () => {
    const retried = (list: typeof emailApiRetries) =>
      [undefined, 200, 400, 404, 408, 409, 425, 429, 500, 503].filter((status) =>
        isRetryable({ status }, list),
      );
    expect(retried(emailApiRetries)).toEqual([undefined, 408, 425, 429, 500, 503]);
    expect(retried(cloudflareClientRetries)).toEqual([undefined, 429, 500, 503]);
    expect(retried(cloudflareProviderRetries)).toEqual([undefined, 408, 409, 429, 500, 503]);
  });

  it("hears Cloudflare's x-should-retry only where the client does", () => {
    expect(isRetryable({ status: 503, shouldRetry: "false" }, cloudflareProviderRetries)).toBe(false);
    expect(isRetryable({ status: 400, shouldRetry: "true" }, cloudflareProviderRetries)).toBe(true);
    expect(isRetryable({ status: 503, shouldRetry: "false" }, cloudflareClientRetries)).toBe(true);
    expect(isRetryable({ status: 400, shouldRetry: "true" }, cloudflareClientRetries)).toBe(false);
  });
});

describe("heardRetryAfter", () => {
  it("caps a long Retry-After, or does not hear it, as the plan says", () => {
    expect(heardRetryAfter(90_000, emailApiWaits)).toBe(90_000);
    // Cloudflare's block lasts to its 5-minute window's end: heard up to that, no longer.
    expect(heardRetryAfter(290_000, cloudflareClientRetry)).toBe(290_000);
    expect(heardRetryAfter(900_000, cloudflareClientRetry)).toBe(330_000);
    expect(heardRetryAfter(59_000, cloudflareProviderRetry)).toBe(59_000);
    expect(heardRetryAfter(60_000, cloudflareProviderRetry)).toBeUndefined();
    expect(heardRetryAfter(undefined, cloudflareClientRetry)).toBeUndefined();
  });
});

describe("backoffDelay without equal jitter", () => {
  it("is the bare backoff, or the Retry-After exactly (the Cloudflare client)", () => {
    expect([1, 2, 3, 6, 7, 8].map((retry) => backoffDelay(retry, cloudflareClientRetry, () => 0.5))).toEqual([
      250, 500, 1000, 8000, 8000, 8000,
    ]);
    expect(backoffDelay(3, cloudflareClientRetry, () => 0.5, 7000)).toBe(7000);
  });

  it("never waits less than the backoff for a shorter Retry-After (0, a date gone by)", () => {
    // Taken as asked, a 429 storm with `Retry-After: 0` would be sent again at once for a minute.
    expect([1, 2, 3].map((retry) => backoffDelay(retry, cloudflareClientRetry, () => 0.5, 0))).toEqual([
      250, 500, 1000,
    ]);
    expect(backoffDelay(1, cloudflareClientRetry, () => 0.5, 1)).toBe(250);
    expect(waitBeforeRetry(3, cloudflareClientRetry, () => 0.5, 0, 0)).toBe(1000);
  });

  it("takes up to a quarter off the backoff, never off a Retry-After (cloudflare-go)", () => {
    expect(backoffDelay(1, cloudflareProviderRetry, () => 0)).toBe(2000);
    expect(backoffDelay(1, cloudflareProviderRetry, () => 1)).toBe(1500);
    expect(backoffDelay(5, cloudflareProviderRetry, () => 0)).toBe(30_000);
    expect(backoffDelay(5, cloudflareProviderRetry, () => 1, 3000)).toBe(3000);
  });
});

describe("waitBeforeRetry", () => {
  const email = { ...defaultRetryPolicy(), ...emailApiWaits };

  it("cuts the email API's backoff to leave the retry a second, never below Retry-After", () => {
    expect(waitBeforeRetry(6, email, () => 0.999, undefined, 57_000)).toBe(2000);
    expect(waitBeforeRetry(1, email, () => 0, 3000, 56_999)).toBe(3000);
    expect(waitBeforeRetry(1, email, () => 0, 3000, 57_000)).toBeUndefined();
  });

  it("gives the Cloudflare client's whole wait or none", () => {
    expect(waitBeforeRetry(6, cloudflareClientRetry, () => 0, undefined, 321_999)).toBe(8000);
    expect(waitBeforeRetry(6, cloudflareClientRetry, () => 0, undefined, 322_000)).toBeUndefined();
  });

  it("has no time limit for the Cloudflare provider", () => {
    expect(waitBeforeRetry(10, cloudflareProviderRetry, () => 0, undefined, 3_600_000)).toBe(30_000);
  });
});
