import { JudgedChecks, receiversAccept, ReceiversJudgement } from "../receivers/judge";
import type { CheckName, WhenReceiversReject } from "../inputs";

/**
 * The wait's last step: once the service's checks pass, what receivers make of DNS as served. The
 * service's checks are a minimum (Postal's SPF check takes any TXT record holding its include); a
 * posture receivers reject ends the wait at once, since polling does not change it, and one they
 * cannot judge yet (a DNS failure) is polled again, never read as a pass.
 */

export interface ReceiversOptions {
  /** Receivers' judgement of DNS as served now (`judgeReceivers` over the domain's nameservers). */
  judge: () => Promise<ReceiversJudgement>;
  /** `fail`: the wait fails with the findings; `warn`: it passes, the findings said. */
  whenRejected: WhenReceiversReject;
}

/** What the step decided. */
export interface ReceiversStep {
  /** The wait ends now (receivers decided, or a warning will do). */
  final: boolean;
  verified: boolean;
  /** Receivers' judgement, when it could be made. */
  receivers?: ReceiversJudgement;
  /** False: receivers reject; undefined: they could not be judged. */
  accepted?: boolean;
  /** Why no judgement could be made. */
  receiversError?: Error;
}

/** The checks of a verification as the receivers' verdict reads them: SPF's identities and DKIM. */
export function judgedChecks(checks: readonly CheckName[]): JudgedChecks {
  return { spf: checks.includes("spf") || checks.includes("returnPath"), dkim: checks.includes("dkim") };
}

/** Judges once, bounded by `timeoutMs`; a judgement that fails or is late is "cannot tell". */
export async function receiversStep(
  options: ReceiversOptions,
  checks: readonly CheckName[],
  timeoutMs: number,
): Promise<ReceiversStep> {
  let receivers: ReceiversJudgement;
  try {
    receivers = await bounded(options.judge(), timeoutMs);
  } catch (error) {
    const receiversError = error instanceof Error ? error : new Error(String(error));
    return {
      final: options.whenRejected === "warn",
      verified: options.whenRejected === "warn",
      receiversError,
    };
  }
  const accepted = receiversAccept(receivers, judgedChecks(checks));
  if (accepted === true) return { final: true, verified: true, receivers, accepted };
  const warn = options.whenRejected === "warn";
  // Rejected: final either way. Not judged: a warning ends it, a failure polls again.
  return { final: accepted === false || warn, verified: warn, receivers, accepted };
}

async function bounded<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`DNS did not answer receivers' lookups within ${Math.round(timeoutMs / 1000)} s`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}
