import { RetryPlan, waitBeforeRetry } from "./retry";

/** Time, injected so that tests run the loop on a fake clock. */
export interface Clock {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** The real clock: `Date.now` and a timer. */
export function systemTime(): Clock {
  return { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };
}

/**
 * What one try came to: a value, a failure to throw as it is, or another try (`wait`: back off
 * first; `refused`: a 429, which proves nothing was done). `queuedMs`: time the try spent waiting
 * for this process's own turn to send, which is not the service failing, so no part of the budget.
 */
export type Try<T, F> = { queuedMs?: number } & (
  | { to: "done"; value: T }
  | { to: "fail"; error: unknown }
  | { to: "retry"; failure?: F; wait: boolean; refused?: true }
);

/** One call with retries: how each try is made, and what the plan allows. */
export interface Retrying<T, F> {
  plan: RetryPlan;
  clock: Clock;
  /** Source of jitter. */
  random: () => number;
  /** Timeout of one request; the loop cuts it so that no request outlives the budget. */
  requestTimeoutMs: number;
  /** Makes try number `n` (1-based, lookups included). */
  attempt: (n: number, timeoutMs: number) => Promise<Try<T, F>>;
  /** The wait a failure asks for (`Retry-After`), in ms. */
  retryAfterMs: (failure: F) => number | undefined;
  /** What is thrown when the tries or the time run out, after `failure`, the latest. */
  giveUp: (failure: F) => unknown;
}

/**
 * The one retry loop. It makes tries until one is done or fails for good, and between two tries
 * waits as the plan says; it gives up when `maxAttempts` tries were counted, or when the next wait
 * would reach past `budgetMs`. What a try is (a send, a lookup after a lost answer, a resend) is
 * the caller's: each API client passes its own `attempt`.
 */
export async function retrying<T, F>(call: Retrying<T, F>): Promise<T> {
  const { plan, clock } = call;
  const started = clock.now();
  const spent = { tries: 0, refused: 0, queuedMs: 0 };
  const elapsed = () => clock.now() - started - spent.queuedMs;
  const counted = () => spent.tries - (plan.refusalsAreFree ? spent.refused : 0);
  let failure: { latest: F } | undefined;
  const giveUp = () => call.giveUp(failure!.latest);

  for (;;) {
    const remaining = plan.budgetMs - elapsed();
    if (failure && (counted() >= plan.maxAttempts || remaining <= 0)) throw giveUp();
    spent.tries++;
    const step = await call.attempt(spent.tries, Math.max(1, Math.min(call.requestTimeoutMs, remaining)));
    spent.queuedMs += step.queuedMs ?? 0;
    if (step.to === "done") return step.value;
    if (step.to === "fail") throw step.error;
    if (step.failure !== undefined) failure = { latest: step.failure };
    if (step.refused) spent.refused++;
    if (!step.wait) continue;
    // No request is left to wait for.
    if (counted() >= plan.maxAttempts) throw giveUp();
    const asked = call.retryAfterMs(failure!.latest);
    const delay = waitBeforeRetry(spent.tries, plan, call.random, asked, elapsed());
    if (delay === undefined) throw giveUp();
    await clock.sleep(delay);
  }
}
