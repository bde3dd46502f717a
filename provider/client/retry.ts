/**
 * How hard the client tries. Only transient failures (429, 5xx, network errors, timeouts) are
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

/**
 * The wait before retry number `retry` (1 = first retry): capped exponential backoff with "equal
 * jitter" (half fixed, half random, so concurrent clients spread out but never retry at once).
 * When the server asked for a wait in `Retry-After`, that wait is the fixed part and the jitter
 * comes on top (up to half of it or of the backoff, whichever is longer, at most half the cap):
 * every client refused at one instant is told the same wait, and would otherwise all come back
 * at the same instant again.
 */
export function backoffDelay(
  retry: number,
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">,
  random: () => number,
  retryAfterMs?: number,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const asked = retryAfterMs ?? 0;
  const spread = Math.min(policy.maxDelayMs, Math.max(exponential, asked)) / 2;
  return Math.round(Math.max(exponential / 2, asked) + random() * spread);
}
