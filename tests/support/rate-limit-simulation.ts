import {
  AdaptiveRateLimiter,
  AdaptiveRateLimiterOptions,
  outcomeOf,
} from "../../provider/client/adaptive-rate-limiter";
import { backoffDelay, defaultRetryPolicy, RetryPolicy } from "../../provider/client/retry";
import { RateLimit, TokenBucket } from "../../emulator/http/rate-limit";
import { seededRandom } from "../../emulator/http/faults";
import { FakeClock } from "./fake-clock";

export interface SimulatedScenario {
  /** Operations started at once, each sending until one request is accepted. */
  operations: number;
  /** The service's limit; none: every request is accepted. */
  limit?: RateLimit;
  /** Time from sending to the answer. @default 2 */
  latencyMs?: number;
  /** A share of requests the service refuses with 429 regardless of its limit (an unsteady proxy). */
  randomThrottle?: { share: number; retryAfterSeconds: number };
  policy?: Partial<RetryPolicy>;
  limiter?: AdaptiveRateLimiterOptions;
  seed?: number;
}

export interface SimulatedRun {
  requests: number;
  throttled: number;
  failures: number;
  /** Simulated time until the last operation ended. */
  ms: number;
}

/**
 * Runs operations through the client's rate limiter and its 429 retries (the limiter's permit
 * around each request; `backoffDelay` with the answer's `Retry-After` between tries; 429s
 * counted against the time budget only, waiting in the limiter's queue not at all) against the
 * emulator's token bucket, on a fake clock: what the provider does against a rate-limited
 * service, in simulated time, the same on any machine.
 */
export async function simulate(scenario: SimulatedScenario): Promise<SimulatedRun> {
  const clock = new FakeClock();
  const random = seededRandom(scenario.seed ?? 7);
  const limiter = new AdaptiveRateLimiter(scenario.limiter, clock);
  const bucket = scenario.limit && new TokenBucket(scenario.limit, clock.now());
  const policy = { ...defaultRetryPolicy(), ...scenario.policy };
  const latency = scenario.latencyMs ?? 2;
  const run: SimulatedRun = { requests: 0, throttled: 0, failures: 0, ms: 0 };

  const answer = (): number | undefined => {
    const noise = scenario.randomThrottle;
    if (noise && random() < noise.share) return noise.retryAfterSeconds;
    const admission = bucket?.take(clock.now());
    return admission && !admission.allowed ? admission.retryAfterSeconds : undefined;
  };

  const operation = async () => {
    const started = clock.now();
    let queued = 0;
    for (let attempt = 1; ; attempt++) {
      const waitFrom = clock.now();
      const permit = await limiter.acquire();
      queued += clock.now() - waitFrom;
      run.requests++;
      await clock.sleep(latency / 2);
      const retryAfterSeconds = answer();
      await clock.sleep(latency / 2);
      permit.release(retryAfterSeconds === undefined ? "accepted" : outcomeOf(429, retryAfterSeconds * 1000));
      if (retryAfterSeconds === undefined) return;
      run.throttled++;
      const delay = backoffDelay(attempt, policy, random, retryAfterSeconds * 1000);
      if (clock.now() - started - queued + delay >= policy.budgetMs) {
        run.failures++;
        return;
      }
      await clock.sleep(delay);
    }
  };

  const all = Promise.all(Array.from({ length: scenario.operations }, operation));
  await clock.run();
  await all;
  run.ms = clock.now();
  return run;
}
