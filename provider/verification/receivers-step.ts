import { JudgedChecks, receiversAccept, ReceiversJudgement } from "../receivers/judge";
import type { CheckName, WhenReceiversReject } from "../inputs";

/**
 * The wait's last step: once the service's checks pass, what receivers make of DNS as served. The
 * service's checks are a minimum (Postal's SPF check takes any TXT record holding its include); a
 * posture receivers reject twice in a row ends the wait, since polling does not change it, and one
 * they cannot judge yet (a DNS failure) is polled again, never read as a pass.
 */

export interface ReceiversOptions {
  /** Receivers' judgement of DNS as served now (`judgeReceivers` over the domain's nameservers). */
  judge: () => Promise<ReceiversJudgement>;
  /** `fail`: the wait fails with the findings; `warn`: it passes, the findings said. */
  whenRejected: WhenReceiversReject;
}

/** What the step decided. */
export interface ReceiversStep {
  /** The wait ends now: receivers accepted, or rejected twice in a row. */
  final: boolean;
  /** What the wait reports if it ends with this step: accepted, or `whenRejected: "warn"`. */
  verified: boolean;
  /** Receivers' judgement, when it could be made. */
  receivers?: ReceiversJudgement;
  /** False: receivers reject; undefined: they could not be judged. */
  accepted?: boolean;
  /** Why no judgement could be made. */
  receiversError?: Error;
}

/**
 * The checks of a verification as the receivers' verdict reads them: the domain's own SPF record
 * (`spf`), the envelope sender's SPF (`spf` or `returnPath`: the return path carries the envelope),
 * and DKIM.
 */
export function judgedChecks(checks: readonly CheckName[]): JudgedChecks {
  return {
    spf: checks.includes("spf"),
    envelope: checks.includes("spf") || checks.includes("returnPath"),
    dkim: checks.includes("dkim"),
  };
}

/**
 * Judges once, bounded by `timeoutMs`; a judgement that fails or is late is "cannot tell". A
 * rejection ends the wait only when the judgement before it (a poll earlier) rejected too: a
 * nameserver may still serve for a moment a record this `up` has just replaced. `verified` is what
 * the wait reports if it ends here: accepted, or the stack asked for a warning.
 */
export async function receiversStep(
  options: ReceiversOptions,
  checks: readonly CheckName[],
  timeoutMs: number,
  rejectedBefore: boolean,
): Promise<ReceiversStep> {
  const warn = options.whenRejected === "warn";
  let receivers: ReceiversJudgement;
  try {
    receivers = await bounded(options.judge(), timeoutMs);
  } catch (error) {
    return {
      final: false,
      verified: warn,
      receiversError: error instanceof Error ? error : new Error(String(error)),
    };
  }
  const accepted = receiversAccept(receivers, judgedChecks(checks));
  if (accepted === true) return { final: true, verified: true, receivers, accepted };
  // Rejected twice in a row: final. Rejected once, or not judged: polled again.
  return { final: accepted === false && rejectedBefore, verified: warn, receivers, accepted };
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
