import { DomainCheck, isEmailApiError, isObjectNotFound } from "../client";
import { CheckName, defaultMaxPollInterval, VerificationInputs } from "../inputs";
import { reclassify } from "./check-diagnosis";
import type { CheckDiagnoses, DiagnoseOptions, Diagnoser } from "./diagnosis-facts";
import { authoritativeShow, DnsFirstOptions, dnsVerdict, serviceCheckReason } from "./dns-first";
import { describeFailing, failingChecks, formatDuration, notChecked, WaitOutcome } from "./report";
import { abortableSleep, stoppable } from "./sleep";
import { ReceiversOptions, ReceiversStep, receiversStep } from "./receivers-step";

export interface WaitOptions {
  checks: readonly CheckName[];
  timeoutMs: number;
  /** First wait between polls; later waits grow from it. */
  pollIntervalMs: number;
  /** Longest wait between polls. */
  maxPollIntervalMs: number;
  /** Progress lines ("still waiting for DKIM (Missing); 4m05s left"). */
  log: (line: string) => void;
  /**
   * Ends the wait between polls, which then throws the signal's reason: the test kit's stop of a
   * run that ended early (see kit-run-stop.ts). @default none: the wait runs to its verdict or timeout
   */
  signal?: AbortSignal;
  /**
   * Says why the failing checks fail (`checkDiagnoser`: what DNS serves against what the service
   * expects), after each check that has some failing: its cases go into the progress lines, the
   * last one's facts under the failure's table. A diagnosis that fails is reported, never fatal.
   * @default none: the service's statuses and texts only
   */
  diagnose?: Diagnoser;
  /**
   * Ask DNS before asking the service (needs `diagnose`): each poll gathers the DNS facts of the
   * failing checks once, and asks the service's check only when DNS shows every failing check's
   * record, when DNS cannot tell, when `serviceCheckCapMs` has passed since the last service
   * check, or at the deadline (see `serviceCheckReason`). A poll that skips the service words its
   * progress line from DNS. @default none: the service is asked on every poll
   */
  dnsFirst?: DnsFirstOptions;
  /**
   * Once the service's checks pass, judge the domain's mail as receivers do (`receiversStep`): a
   * posture they reject ends the wait as not verified (or verified with a warning), one they
   * cannot judge yet is polled again. @default none: the service's checks decide
   */
  receivers?: ReceiversOptions;
  /** Injected for tests. @default Date.now, setTimeout, Math.random */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** The time source of a wait; tests pass their own to run a wait without sleeping through it. */
export type WaitClock = Pick<WaitOptions, "now" | "sleep" | "random">;

/**
 * Polls the service's check until every requested check is OK or the time is up: one check
 * per poll, each request bounded (see `checkRequestTimeout`), waits growing from the poll
 * interval to a cap with jitter, never sleeping past the deadline (the last poll happens at it).
 * A failed poll is logged and counts as "not yet", unless the service's answer is definite (see
 * `endsWait`): then the wait ends at once with that error. With `dnsFirst`, a poll asks DNS
 * first and may skip the service (see `WaitOptions.dnsFirst`). DNS is asked at most once per
 * poll; the zone's records (Cloudflare requests) only once, for a failure's final diagnosis.
 */
export async function waitForChecks(
  check: (requestTimeoutMs: number) => Promise<DomainCheck>,
  options: WaitOptions,
): Promise<WaitOutcome> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => abortableSleep(ms, options.signal));
  const random = options.random ?? Math.random;
  const started = now();
  const deadline = started + options.timeoutMs;
  const dnsFirst = options.diagnose && options.dnsFirst;
  let polls = 0;
  let serviceChecks = 0;
  let lastServiceCheckAt = started;
  // A service check that got no answer is asked again at the next poll, not a whole cap later.
  let serviceUnanswered = false;
  let result: DomainCheck | undefined;
  let lastError: Error | undefined;
  let diagnosed: Pick<WaitOutcome, "diagnoses" | "diagnosisError"> = {};
  // The service passed, but receivers rejected the mail once (judged again a poll later) or could
  // not be judged (DNS did not answer): poll again.
  let receiversOpen: ReceiversStep | undefined;

  for (;;) {
    options.signal?.throwIfAborted();
    polls++;
    const requestTimeoutMs = () => checkRequestTimeout(options.timeoutMs, deadline - now());
    let askService = true;
    // Before the service's first answer, every requested check counts as failing.
    let gathered: typeof diagnosed | undefined;
    if (dnsFirst) {
      const failing = result ? failingChecks(result, options.checks) : options.checks;
      gathered = await diagnoseSafely(options.diagnose!, result, failing, {
        timeoutMs: requestTimeoutMs(),
        brief: true,
      });
      askService =
        serviceCheckReason({
          verdict: dnsVerdict(failing, gathered),
          sinceServiceCheckMs: now() - lastServiceCheckAt,
          capMs: dnsFirst.serviceCheckCapMs,
          atDeadline: deadline - now() <= 0,
        }) !== undefined || serviceUnanswered;
      // The progress line's (classified again below if the service answers); a failed gather keeps the last's.
      diagnosed = gathered.diagnoses ? gathered : { ...diagnosed, diagnosisError: gathered.diagnosisError };
    }
    let zoneAsked = false;
    if (askService) {
      let checked = false;
      serviceChecks++;
      serviceUnanswered = true;
      try {
        result = await check(requestTimeoutMs());
        lastError = undefined;
        checked = true;
        serviceUnanswered = false;
        lastServiceCheckAt = now();
        const rejectedBefore = receiversOpen?.accepted === false;
        receiversOpen = undefined;
        if (failingChecks(result, options.checks).length === 0) {
          if (!options.receivers) return { result, verified: true, polls, serviceChecks };
          const step = await receiversStep(
            options.receivers,
            options.checks,
            requestTimeoutMs(),
            rejectedBefore,
          );
          if (step.final) return { result, polls, serviceChecks, ...receiversOutcome(step) };
          receiversOpen = step;
        }
      } catch (error) {
        if (endsWait(error)) throw error;
        lastError = error as Error;
      }
      // Only a new result is diagnosed: after a failed poll, the last diagnosis still describes it.
      // A DNS-first poll has its facts already: they are classified again against the new result.
      if (checked && result && options.diagnose) {
        const failing = failingChecks(result, options.checks);
        if (gathered) {
          if (gathered.diagnoses) diagnosed = { diagnoses: reclassify(gathered.diagnoses, result, failing) };
        } else {
          // The last poll's diagnosis is the failure's: the zone's records are asked for then only.
          zoneAsked = deadline - now() <= 0;
          diagnosed = await diagnoseSafely(
            options.diagnose,
            result,
            failing,
            zoneAsked ? { zone: true, timeoutMs: finalDiagnosisBound(options.timeoutMs) } : undefined,
          );
        }
      }
    }
    const left = deadline - now();
    if (left <= 0) {
      if (result && options.diagnose && !zoneAsked)
        diagnosed = await finalDiagnosis(options.diagnose, options, result, diagnosed, Boolean(dnsFirst));
      return {
        result,
        verified: false,
        polls,
        serviceChecks,
        lastError,
        ...diagnosed,
        ...(receiversOpen ? receiversOutcome(receiversOpen) : {}),
      };
    }

    const waiting = receiversOpen
      ? receiversOpen.accepted === false
        ? "the service's checks pass, but receivers would not accept the mail; checking once more"
        : "the service's checks pass; waiting for DNS to answer receivers' lookups"
      : result
        ? `waiting for ${describeFailing(result, options.checks, diagnosed.diagnoses)}`
        : askService
          ? "the service did not answer"
          : `waiting for ${describeFailing(notChecked(), options.checks, diagnosed.diagnoses)}`;
    options.log(
      `${waiting}; ${formatDuration(left)} left${lastError ? ` (last check: ${lastError.message})` : ""}`,
    );

    const grown = Math.min(options.maxPollIntervalMs, options.pollIntervalMs * 1.5 ** (polls - 1));
    const jittered = Math.min(options.maxPollIntervalMs, grown * (0.8 + 0.4 * random()));
    await stoppable(sleep(Math.max(0, Math.min(jittered, left))), options.signal);
  }
}

/** The diagnoses of the failing checks, or the error that kept them from being made. */
async function diagnoseSafely(
  diagnose: Diagnoser,
  result: DomainCheck | undefined,
  failing: readonly CheckName[],
  call?: DiagnoseOptions,
): Promise<{ diagnoses?: CheckDiagnoses; diagnosisError?: Error }> {
  try {
    return { diagnoses: await diagnose(result, failing, call) };
  } catch (error) {
    return { diagnosisError: error instanceof Error ? error : new Error(String(error)) };
  }
}

/**
 * How long the failure's last diagnosis may add past the timeout: a tenth of the wait, 3 to 10 s
 * (a few dozen queries at most: a busy machine must not lose a short wait's diagnosis to its load).
 */
export function finalDiagnosisBound(timeoutMs: number): number {
  return Math.min(10_000, Math.max(3_000, timeoutMs / 10));
}

/**
 * A timed-out wait's diagnosis, with the zone's records, asked now and only now (they cost
 * Cloudflare requests): DNS asked in full after a DNS-first wait (its polls asked the nameservers
 * only), else the last poll's facts reused. If that fails, the last poll's diagnoses stand, with
 * the error beside them.
 */
async function finalDiagnosis(
  diagnose: Diagnoser,
  { checks, timeoutMs }: WaitOptions,
  result: DomainCheck,
  last: { diagnoses?: CheckDiagnoses; diagnosisError?: Error },
  lastWasBrief: boolean,
): Promise<{ diagnoses?: CheckDiagnoses; diagnosisError?: Error }> {
  const failing = failingChecks(result, checks);
  // Nameservers that never answered in the wait (silent, unreachable) would not now either.
  const answered = Object.values(last.diagnoses ?? {}).some(
    (found) => found !== undefined && authoritativeShow(found.facts) !== "no-answer",
  );
  if (failing.length === 0 || !answered) return last;
  // A DNS-first poll's facts are brief (authoritative answers only): the failure asks again in full.
  const final = await diagnoseSafely(diagnose, result, failing, {
    zone: true,
    ...(lastWasBrief ? {} : { known: last.diagnoses }),
    timeoutMs: finalDiagnosisBound(timeoutMs),
  });
  // A full diagnosis that failed leaves the last poll's, when it has one.
  return final.diagnoses ? final : last.diagnoses ? last : { ...last, ...final };
}

/**
 * Whether a failed check ends the wait. Only answers that another poll cannot change do:
 * - the key is refused (`auth`: HTTP 401/403, `AccessDenied`, `InvalidServerAPIKey`, …);
 * - the domain is gone: the service's own not-found (`DomainNotFound`), not a bare HTTP 404,
 *   which a proxy or a deploy in progress also gives;
 * - the service refused the request itself as invalid: its `parameter-error` or
 *   `validation-error` answers (codes `ParameterError`, `ValidationError`), which name the input.
 * Everything else is "not yet": network errors and timeouts, 429 and 5xx, an error code we do not
 * know (`{status: "error", data: {code: "SomethingNew"}}`; a fork may even report failing records
 * that way), a body that is not the service's JSON (a proxy's HTML page), a conflict. Errors that
 * are not the service's (configuration, bugs) end the wait too: polling will not fix them.
 */
export function endsWait(error: unknown): boolean {
  if (!isEmailApiError(error)) return true;
  if (error.kind === "auth" || isObjectNotFound(error)) return true;
  return error.kind === "validation" && (error.code === "ParameterError" || error.code === "ValidationError");
}

/**
 * Postal's check looks up the domain's nameservers and then four records, each lookup bounded by
 * its resolver timeout (`dns.timeout`, 5 s by default; app/lib/dns_resolver.rb): a check that has
 * not answered in 30 s is not coming.
 */
export const MAX_CHECK_REQUEST_MS = 30_000;
/** A request needs some time even at the deadline (the last poll happens at it). */
export const MIN_CHECK_REQUEST_MS = 1_000;

/**
 * How long one check request may take before it is abandoned (a hung one then counts as "not yet"
 * and the wait polls again): at most 30 s, at most a quarter of the whole timeout (so even
 * requests that all hang leave room for four polls), and no longer than the time left, but never
 * under 1 s.
 */
export function checkRequestTimeout(timeoutMs: number, timeLeftMs: number): number {
  return Math.max(MIN_CHECK_REQUEST_MS, Math.min(MAX_CHECK_REQUEST_MS, timeoutMs / 4, timeLeftMs));
}

/** The wait's times for a verification's inputs (state without `maxPollIntervalSeconds` gets its default). */
export function waitTimes(
  inputs: Pick<VerificationInputs, "timeoutSeconds" | "pollIntervalSeconds" | "maxPollIntervalSeconds">,
): Pick<WaitOptions, "timeoutMs" | "pollIntervalMs" | "maxPollIntervalMs"> {
  const cap = inputs.maxPollIntervalSeconds ?? defaultMaxPollInterval(inputs.pollIntervalSeconds);
  return {
    timeoutMs: inputs.timeoutSeconds * 1000,
    pollIntervalMs: inputs.pollIntervalSeconds * 1000,
    maxPollIntervalMs: Math.max(cap, inputs.pollIntervalSeconds) * 1000,
  };
}

/** What a wait ends with after the receivers' step. */
function receiversOutcome(
  step: ReceiversStep,
): Pick<WaitOutcome, "verified" | "receivers" | "receiversAccepted" | "receiversError"> {
  return {
    verified: step.verified,
    ...(step.receivers ? { receivers: step.receivers } : {}),
    receiversAccepted: step.accepted,
    ...(step.receiversError ? { receiversError: step.receiversError } : {}),
  };
}
