/**
 * The one retry policy: what is retried, how long to wait (backoff with jitter, `Retry-After`),
 * and when to stop (attempts, time). Pure functions; the loop that uses them is `retry-loop.ts`.
 * Each API has a plan of its own below: where they differ, they differ here, as data.
 */

/**
 * How hard a client tries. Only transient failures (429, 5xx, network errors, timeouts) are
 * retried, within both an attempt cap and a total time budget. A 429 proves nothing was done, so
 * requests refused with it count against the budget only.
 */
export interface RetryPolicy {
  /** Requests per operation at most, the first included; those refused with 429 are not counted. @default 6 */
  maxAttempts: number;
  /** Delay before the first retry; doubles each time. @default 250 */
  baseDelayMs: number;
  /** Cap on one backoff delay. @default 8000 */
  maxDelayMs: number;
  /** Total time an operation may take, retries and waits included. @default 60000 */
  budgetMs: number;
}

/** The policy each client starts from: each field's `@default` in {@link RetryPolicy}. */
export const defaultRetryPolicy = (): RetryPolicy => ({
  maxAttempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  budgetMs: 60_000,
});

/** How the waits are made, beside the bounds: what the APIs' clients do differently. */
export interface WaitRules {
  /**
   * - `equal`: half the backoff fixed, half random; a `Retry-After` is the fixed part and the
   *   jitter comes on top (`backoffDelay`);
   * - `subtractQuarter`: the backoff less up to a quarter, a `Retry-After` exactly (cloudflare-go);
   * - `none`: the backoff, or a longer `Retry-After`, exactly. A shorter one (`0`, a date gone by)
   *   is no wait of its own: taken as asked, a service answering 429 with it would be sent the
   *   request again at once, as fast as it answers, for the whole budget.
   */
  jitter: "equal" | "subtractQuarter" | "none";
  /** Longest `Retry-After` taken as asked. */
  retryAfterMaxMs: number;
  /** A longer one: waited for `retryAfterMaxMs` (`cap`), or not heard, backing off instead (`ignore`). */
  longRetryAfter: "cap" | "ignore";
  /**
   * The backoff (never a `Retry-After`) is cut to leave the retry this long before the budget ends.
   * Undefined: never cut; a wait that does not fit gives up.
   */
  reserveMs?: number;
  /** Requests refused with 429 are not counted against `maxAttempts` (they count against the time). */
  refusalsAreFree: boolean;
}

/** Everything the loop needs to know of a policy. */
export type RetryPlan = RetryPolicy & WaitRules;

/** The email API's waits: equal jitter, on top of `Retry-After` too; the last wait cut to leave 1 s. */
export const emailApiWaits: WaitRules = {
  jitter: "equal",
  retryAfterMaxMs: Infinity,
  longRetryAfter: "cap",
  reserveMs: 1000,
  refusalsAreFree: true,
};

/**
 * The package's own Cloudflare DNS-records client (the records a `Domain` publishes): 0.25 s
 * doubling to 8 s, 12 requests at most. A 429 is Cloudflare's account-wide limit, which blocks
 * every request to the end of its 5-minute window and says so in `Retry-After`: that wait is
 * taken as asked (within the budget: 5.5 minutes), and refused requests do not count, so a command
 * that meets the limit (another stack of the account spent it) waits it out instead of failing.
 */
export const cloudflareClientRetry: RetryPlan = {
  maxAttempts: 12,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  budgetMs: 330_000,
  jitter: "none",
  // Capped at the budget: a longer one (never Cloudflare's) does not fit, so the call gives up at once.
  retryAfterMaxMs: 330_000,
  longRetryAfter: "cap",
  refusalsAreFree: true,
};

/**
 * What the Cloudflare provider's API client does (cloudflare-go ≥ v6.6.0, in terraform-provider-
 * cloudflare ≥ 5.16, `@pulumi/cloudflare` ≥ 6.13; `internal/requestconfig/requestconfig.go`):
 * 10 retries, 2 s doubling to 30 s less up to a quarter, a `Retry-After` under a minute honoured,
 * no time limit but the caller's. Which answers it retries: `cloudflareProviderRetries`.
 */
export const cloudflareProviderRetry: RetryPlan = {
  maxAttempts: 11,
  baseDelayMs: 2000,
  maxDelayMs: 30_000,
  budgetMs: Infinity,
  jitter: "subtractQuarter",
  retryAfterMaxMs: 59_999,
  longRetryAfter: "ignore",
  refusalsAreFree: false,
};

/** Statuses a client retries: these, and every 5xx. */
export interface RetryableAnswers {
  statuses: readonly number[];
  /** Honour `x-should-retry: true|false` (Cloudflare's API tells its clients so). */
  shouldRetryHeader: boolean;
}

/** The email API's (`kindForHttpStatus` "transient"): 408, 425, 429 and 5xx. */
export const emailApiRetries: RetryableAnswers = { statuses: [408, 425, 429], shouldRetryHeader: false };
/** The package's Cloudflare client: 429 and 5xx (a 409 is Cloudflare's answer, not a hiccup). */
export const cloudflareClientRetries: RetryableAnswers = { statuses: [429], shouldRetryHeader: false };
/** The Cloudflare provider's API client: 408, 409, 429 and 5xx, unless `x-should-retry` says otherwise. */
export const cloudflareProviderRetries: RetryableAnswers = {
  statuses: [408, 409, 429],
  shouldRetryHeader: true,
};

/** Whether an answer is worth another try (a lost answer always is: no `status`). */
export function isRetryable(
  answer: { status?: number; shouldRetry?: string | null },
  retryable: RetryableAnswers,
): boolean {
  if (answer.status === undefined) return true;
  if (retryable.shouldRetryHeader && answer.shouldRetry === "true") return true;
  if (retryable.shouldRetryHeader && answer.shouldRetry === "false") return false;
  return answer.status >= 500 || retryable.statuses.includes(answer.status);
}

/**
 * An HTTP date as RFC 9110 has senders write it (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`).
 * Only this form: V8's `Date.parse` reads almost anything with a letter in it as a date ("soon
 * 3000" is the year 3000), which would turn a garbled header into a wait past any budget.
 */
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * `Retry-After` in milliseconds: delta-seconds (fractions tolerated) or an HTTP date (IMF-fixdate).
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === undefined || value === null || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = IMF_FIXDATE.test(trimmed) ? Date.parse(trimmed) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The `Retry-After` a plan waits for: as asked, capped, or not heard (undefined). */
export function heardRetryAfter(retryAfterMs: number | undefined, rules: WaitRules): number | undefined {
  if (retryAfterMs === undefined || retryAfterMs <= rules.retryAfterMaxMs) return retryAfterMs;
  return rules.longRetryAfter === "cap" ? rules.retryAfterMaxMs : undefined;
}

/**
 * The wait before retry number `retry` (1 = first retry): capped exponential backoff, jittered as
 * the rules say. With "equal jitter" (half fixed, half random, so concurrent clients spread out but
 * never retry at once), a wait the server asked for in `Retry-After` is the fixed part and the
 * jitter comes on top (up to half of it or of the backoff, whichever is longer, at most half the
 * cap): every client refused at one instant is told the same wait, and would otherwise all come
 * back at the same instant again.
 */
export function backoffDelay(
  retry: number,
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs"> & { jitter?: "equal" | "subtractQuarter" | "none" },
  random: () => number,
  retryAfterMs?: number,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const jitter = policy.jitter ?? "equal";
  if (jitter === "none") return Math.max(exponential, retryAfterMs ?? 0);
  if (jitter === "subtractQuarter") {
    if (retryAfterMs !== undefined) return retryAfterMs;
    return Math.round(exponential * (1 - 0.25 * random()));
  }
  const asked = retryAfterMs ?? 0;
  const spread = Math.min(policy.maxDelayMs, Math.max(exponential, asked)) / 2;
  return Math.round(Math.max(exponential / 2, asked) + random() * spread);
}

/**
 * The wait before retry number `retry`, `elapsedMs` into the budget, or undefined when it does not
 * fit (give up). Never shorter than a `Retry-After` the plan hears.
 */
export function waitBeforeRetry(
  retry: number,
  plan: RetryPlan,
  random: () => number,
  retryAfterMs: number | undefined,
  elapsedMs: number,
): number | undefined {
  const asked = heardRetryAfter(retryAfterMs, plan);
  let delay = backoffDelay(retry, plan, random, asked);
  if (plan.reserveMs !== undefined)
    delay = Math.max(asked ?? 0, Math.min(delay, plan.budgetMs - elapsedMs - plan.reserveMs));
  return elapsedMs + delay >= plan.budgetMs ? undefined : delay;
}
