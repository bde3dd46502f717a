import type { LimiterClock } from "../../provider/client/adaptive-rate-limiter";
import type { WaitClock, WaitOptions } from "../../provider/verification/wait";

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
  cancelled: boolean;
}

/**
 * A clock whose time moves only when `run` moves it: timers fire in time order, and between two
 * timers every promise chain they started settles, so code that awaits runs as it would in real
 * time, however slow the machine.
 */
export class FakeClock implements LimiterClock {
  private time = 0;
  private seq = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.time;
  }

  setTimer(callback: () => void, ms: number): Timer {
    const timer = { at: this.time + Math.max(0, ms), seq: ++this.seq, callback, cancelled: false };
    this.timers.push(timer);
    return timer;
  }

  clearTimer(timer: unknown): void {
    (timer as Timer).cancelled = true;
  }

  /** Timers set and not yet fired or cleared. */
  pending(): number {
    return this.timers.filter((timer) => !timer.cancelled).length;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(resolve, ms));
  }

  /** Fires timers in order until none is left, or the next is later than `until` (then it is `until`). */
  async run(until = Infinity): Promise<void> {
    for (;;) {
      await settle();
      this.timers = this.timers.filter((timer) => !timer.cancelled);
      const next = this.timers.reduce<Timer | undefined>(
        (a, b) => (a && (a.at < b.at || (a.at === b.at && a.seq < b.seq)) ? a : b),
        undefined,
      );
      if (!next || next.at > until) {
        if (until < Infinity) this.time = Math.max(this.time, until);
        return;
      }
      this.timers.splice(this.timers.indexOf(next), 1);
      this.time = next.at;
      next.callback();
    }
  }
}

/** Lets every pending promise chain run (a macrotask runs only once the microtask queue is empty). */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A clock for a verification's wait whose sleeps return at once and move the clock on by what
 * they slept: the polls, their requests and the deadline stay real, the waits between polls take
 * no time. `afterSleep`, when set, runs in each sleep, to change the world between two polls.
 */
export interface InstantClock extends Required<Pick<WaitClock, "now" | "sleep">> {
  afterSleep?: () => Promise<unknown>;
}

export function instantClock(): InstantClock {
  let slept = 0;
  const clock: InstantClock = {
    now: () => Date.now() + slept,
    sleep: async (ms) => {
      slept += ms;
      await clock.afterSleep?.();
    },
  };
  return clock;
}

/**
 * A verification wait's clock on a fake clock from 0: its sleeps return at once and move `time`
 * on, and its jitter is fixed. Spread `wait` into `waitForChecks`' options; read `time` to see
 * where the wait is (a scripted service or DNS may answer by it).
 */
export interface SteppedWaitClock {
  time: number;
  wait: Required<Pick<WaitOptions, "now" | "sleep" | "random">>;
}

export function steppedWaitClock(): SteppedWaitClock {
  const clock: SteppedWaitClock = {
    time: 0,
    wait: {
      now: () => clock.time,
      sleep: async (ms) => void (clock.time += ms),
      random: () => 0.5,
    },
  };
  return clock;
}
