import { DomainCheck, isEmailApiError } from "../client";
import type { CheckName } from "../inputs";
import { describeFailing, failingChecks, formatDuration } from "./report";

export interface WaitOptions {
  checks: readonly CheckName[];
  timeoutMs: number;
  /** First wait between polls; later waits grow from it. */
  pollIntervalMs: number;
  /** Longest wait between polls. */
  maxPollIntervalMs: number;
  /** Progress lines ("still waiting for DKIM (Missing); 4m05s left"). */
  log: (line: string) => void;
  /** Injected for tests. @default Date.now, setTimeout, Math.random */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface WaitOutcome {
  /** The last check result. */
  result: DomainCheck;
  verified: boolean;
  /** Check requests made. */
  polls: number;
  /** The last transient error, when the last poll failed. */
  lastError?: Error;
}

/**
 * Polls the service's check until every requested check is OK or the time is up: one check
 * per poll (`check` is told the time left, to bound its request), waits growing from the poll interval to a cap with jitter, never sleeping past
 * the deadline (the last poll happens at it). A poll that fails transiently is logged and counts
 * as "not yet"; any other failure (auth, domain gone) ends the wait at once.
 */
export async function waitForChecks(
  check: (timeLeftMs: number) => Promise<DomainCheck>,
  options: WaitOptions,
): Promise<WaitOutcome> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const random = options.random ?? Math.random;
  const deadline = now() + options.timeoutMs;
  let polls = 0;
  let result: DomainCheck | undefined;
  let lastError: Error | undefined;

  for (;;) {
    polls++;
    try {
      result = await check(deadline - now());
      lastError = undefined;
      if (failingChecks(result, options.checks).length === 0) return { result, verified: true, polls };
    } catch (error) {
      if (!isEmailApiError(error) || error.kind !== "transient") throw error;
      lastError = error;
    }
    const left = deadline - now();
    if (left <= 0) return { result: result ?? notChecked(), verified: false, polls, lastError };

    const waiting = result
      ? `waiting for ${describeFailing(result, options.checks)}`
      : "the service did not answer";
    options.log(
      `${waiting}; ${formatDuration(left)} left${lastError ? ` (last check: ${lastError.message})` : ""}`,
    );

    const grown = Math.min(options.maxPollIntervalMs, options.pollIntervalMs * 1.5 ** (polls - 1));
    const jittered = Math.min(options.maxPollIntervalMs, grown * (0.8 + 0.4 * random()));
    await sleep(Math.max(0, Math.min(jittered, left)));
  }
}

function notChecked(): DomainCheck {
  return {
    spfStatus: null,
    spfError: null,
    dkimStatus: null,
    dkimError: null,
    mxStatus: null,
    mxError: null,
    returnPathStatus: null,
    returnPathError: null,
  };
}
