/**
 * How fast one process may send to one service with one key, learned from the service's 429s.
 *
 * Until the first 429 it only caps the requests in flight (at the size of the connection pool, so
 * it holds back nothing the pool would have sent). From a 429 on, it also paces requests at a
 * learned rate:
 * - a token bucket that refuses a request is empty, so what it accepted between two refusals is
 *   what it refilled: at a 429 the rate becomes what the service accepted (answered with anything
 *   but 429) since the previous decision, or over the last `windowMs` if that is nearer, less a
 *   `margin` so that the pace alone does not empty the bucket again;
 * - the first 429 has no previous one: its rate is a guess (that the burst it ends was one
 *   window's worth, late answers to the burst included), and grows fast until a second 429
 *   measures between two;
 * - 429s within `reactMs` of a decision answer requests sent at the old pace: they change nothing;
 * - without 429s the rate grows, slowly near the last decision and faster later (cubic in time,
 *   as TCP's CUBIC), to find capacity the service gained; past `recoverAtRate` pacing stops.
 * `Retry-After` holds back only the refused request (its retry): services that answer in whole
 * seconds say `1` when the next token is 50 ms away.
 */

/** The clock the limiter reads and schedules on; tests give it a fake one. */
export interface LimiterClock {
  /** Milliseconds, monotonic. */
  now(): number;
  setTimer(callback: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
}

export interface AdaptiveRateLimiterOptions {
  /** Requests in flight at most, before and after any 429. @default 32 */
  maxInFlight?: number;
  /** Span over which accepted requests are counted to learn the rate. @default 1000 */
  windowMs?: number;
  /** 429s this soon after a decision change nothing. @default 500 */
  reactMs?: number;
  /** Time for the learned rate to double without 429s (growth is cubic in time). @default 4000 */
  growthMs?: number;
  /** As `growthMs`, from the first 429 (whose rate is a guess) until the second. @default 1000 */
  probeGrowthMs?: number;
  /** Share below the measured rate to pace at, so that pacing alone does not meet the limit. @default 0.05 */
  margin?: number;
  /** The learned rate never goes below this (requests per second). @default 1 */
  minRate?: number;
  /** Once the rate grows past this (requests per second), pacing stops. @default 1000 */
  recoverAtRate?: number;
}

/** How a request sent under a permit ended. */
export type RequestOutcome =
  /** The service answered, with anything but 429 or 503: it spent capacity on the request. */
  | "accepted"
  /** The service answered 429: it did nothing. */
  | "throttled"
  /** Says nothing about the service's rate: no answer (network error, timeout), a 503, or a 429 that asks for no wait. */
  | "other";

/** The right to send one request; release it exactly once with how the request ended. */
export interface Permit {
  release(outcome: RequestOutcome): void;
}

/**
 * What an answer teaches the limiter. A 429 asking for no wait (`Retry-After: 0`) is retried but
 * slows nothing: the service says it need not.
 */
export function outcomeOf(httpStatus: number, retryAfterMs: number | undefined): RequestOutcome {
  // A 503 is an outage, not the service's rate: counting it as accepted would inflate the rate.
  if (httpStatus === 503) return "other";
  if (httpStatus !== 429) return "accepted";
  return retryAfterMs === 0 ? "other" : "throttled";
}

export const systemClock = (): LimiterClock => ({
  now: () => performance.now(),
  setTimer: (callback, ms) => setTimeout(callback, ms),
  clearTimer: (timer) => clearTimeout(timer as NodeJS.Timeout),
});

export class AdaptiveRateLimiter {
  private readonly settings: Required<AdaptiveRateLimiterOptions>;
  private readonly clock: LimiterClock;
  /** Requests waiting for their turn, first come first served. */
  private readonly waiting: (() => void)[];
  /** When accepted answers arrived, oldest first; those before `acceptedFrom` are forgotten. */
  private accepted: number[];
  private acceptedFrom: number;
  private inFlight: number;
  /** The rate decided at the last 429 and when; undefined before any 429 and after recovery. */
  private decision:
    | {
        rate: number;
        at: number;
        /** Growing fast, from the first 429's guess. */
        probing: boolean;
        /** After the first 429: requests of the burst accepted, late answers included. */
        burst?: number;
      }
    | undefined;
  private nextSendAt: number;
  private timer: unknown;

  constructor(options: AdaptiveRateLimiterOptions = {}, clock: LimiterClock = systemClock()) {
    this.settings = {
      maxInFlight: 32,
      windowMs: 1000,
      reactMs: 500,
      growthMs: 4000,
      probeGrowthMs: 1000,
      margin: 0.05,
      minRate: 1,
      recoverAtRate: 1000,
      ...options,
    };
    this.clock = clock;
    this.waiting = [];
    this.accepted = [];
    this.acceptedFrom = 0;
    this.inFlight = 0;
    this.decision = undefined;
    this.nextSendAt = -Infinity;
    this.timer = undefined;
  }

  /**
   * The learned rate now (requests per second), or undefined while requests are not paced (once
   * it has grown past `recoverAtRate`, the limiter forgets it).
   */
  rate(now = this.clock.now()): number | undefined {
    const decision = this.decision;
    if (!decision) return undefined;
    const growth = decision.probing ? this.settings.probeGrowthMs : this.settings.growthMs;
    const rate = decision.rate * (1 + ((now - decision.at) / growth) ** 3);
    if (rate < this.settings.recoverAtRate) return rate;
    this.decision = undefined;
    return undefined;
  }

  /** Resolves when this request may be sent; at once while nothing holds it back. */
  acquire(): Promise<Permit> {
    if (this.waiting.length === 0 && this.tryStart()) return Promise.resolve(this.permit());
    return new Promise((resolve) => {
      this.waiting.push(() => resolve(this.permit()));
      this.pump();
    });
  }

  /**
   * As `acquire`, but gives up after `maxWaitMs` of waiting: undefined then, and the request is
   * not sent (a caller with a deadline of its own, such as one poll of a verification).
   */
  acquireWithin(maxWaitMs: number): Promise<Permit | undefined> {
    if (this.waiting.length === 0 && this.tryStart()) return Promise.resolve(this.permit());
    return new Promise((resolve) => {
      const pending: { timer?: unknown; waiter?: () => void } = {};
      pending.waiter = () => {
        this.clock.clearTimer(pending.timer);
        resolve(this.permit());
      };
      pending.timer = this.clock.setTimer(() => {
        const index = this.waiting.indexOf(pending.waiter!);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(undefined);
      }, maxWaitMs);
      this.waiting.push(pending.waiter);
      this.pump();
    });
  }

  private permit(): Permit {
    const sentAt = this.clock.now();
    let released = false;
    return {
      release: (outcome) => {
        if (released) return;
        released = true;
        this.inFlight--;
        if (outcome === "accepted") this.recordAccepted(sentAt, this.clock.now());
        else if (outcome === "throttled") this.throttled(this.clock.now());
        this.pump();
      },
    };
  }

  /** Takes a place in flight if the cap and the pace allow one now. */
  private tryStart(): boolean {
    if (this.inFlight >= this.settings.maxInFlight) return false;
    const now = this.clock.now();
    const rate = this.rate(now);
    if (rate !== undefined) {
      if (now < this.nextSendAt) return false;
      const interval = 1000 / rate;
      // A timer that fired a little late keeps the schedule; a pause does not earn a burst.
      this.nextSendAt = (now - this.nextSendAt < interval ? this.nextSendAt : now) + interval;
    }
    this.inFlight++;
    return true;
  }

  /** Starts waiting requests while allowed; else wakes up when the pace next allows one. */
  private pump(): void {
    while (this.waiting.length > 0 && this.tryStart()) this.waiting.shift()!();
    if (this.waiting.length === 0 || this.timer !== undefined) return;
    if (this.inFlight >= this.settings.maxInFlight) return; // a release will pump
    const wait = Math.max(0, this.nextSendAt - this.clock.now());
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      this.pump();
    }, wait);
  }

  private recordAccepted(sentAt: number, now: number): void {
    this.accepted.push(now);
    this.forgetBefore(now - this.settings.windowMs);
    // Answers to requests sent before the first 429 belong to the burst it guessed from.
    const decision = this.decision;
    if (decision?.burst !== undefined && sentAt <= decision.at) {
      decision.burst++;
      decision.rate = Math.max(decision.rate, (decision.burst * 1000) / this.settings.windowMs);
      this.nextSendAt = Math.min(this.nextSendAt, decision.at + 1000 / decision.rate);
      this.cancelTimer();
    }
  }

  private throttled(now: number): void {
    const last = this.decision;
    if (last && now - last.at < this.settings.reactMs) return;
    const since = Math.max(last?.at ?? -Infinity, now - this.settings.windowMs);
    this.forgetBefore(now - this.settings.windowMs);
    let count = 0;
    for (let i = this.acceptedFrom; i < this.accepted.length; i++) if (this.accepted[i] > since) count++;
    const measured = (count * 1000) / (now - since);
    this.decision = {
      // The first 429 comes after a burst: what it says about the rate is a guess (that the burst
      // is one window's worth), so probe from it until a second 429 measures between two.
      rate: Math.max(this.settings.minRate, last ? measured * (1 - this.settings.margin) : measured),
      at: now,
      probing: !last,
      burst: last ? undefined : count,
    };
    // The service's bucket is empty now: the next request waits one interval.
    this.nextSendAt = Math.max(this.nextSendAt, now + 1000 / this.decision.rate);
    this.cancelTimer();
  }

  /** The next start time changed: the pump that follows schedules anew. */
  private cancelTimer(): void {
    if (this.timer === undefined) return;
    this.clock.clearTimer(this.timer);
    this.timer = undefined;
  }

  private forgetBefore(time: number): void {
    while (this.acceptedFrom < this.accepted.length && this.accepted[this.acceptedFrom] <= time)
      this.acceptedFrom++;
    // Compact now and then, not on every answer: moving the array costs its length.
    if (this.acceptedFrom > 1024 && this.acceptedFrom * 2 > this.accepted.length) {
      this.accepted = this.accepted.slice(this.acceptedFrom);
      this.acceptedFrom = 0;
    }
  }
}
