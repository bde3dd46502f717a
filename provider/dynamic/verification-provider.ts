import type * as dynamic from "@pulumi/pulumi/dynamic";
// Only the log: the provider host has the rest of the runtime loaded, the full SDK costs ~0.4 s.
import { log } from "./engine-log";
import { DomainCheck, EmailDeliveryClient, isObjectNotFound } from "../client";
import { redact } from "../client/redact";
import {
  CheckedInputs,
  checkVerificationInputs,
  DEFAULT_WHEN_RECEIVERS_REJECT,
  defaultMaxPollInterval,
  VerificationInputs,
} from "../inputs";
import { failingChecks, notChecked, timeoutMessage } from "../verification/report";
import { receiversMessage } from "../verification/receivers-report";
import type { ReceiversVerdicts } from "../receivers/judge";
import { serviceMail } from "../receivers/service-mail";
import { kitRunStop } from "../verification/kit-run-stop";
import type { WaitOutcome } from "../verification/report";
import { WaitClock, waitForChecks, waitTimes } from "../verification/wait";
import { verificationDiagnoser } from "./verification-diagnoser";
import { rememberConfig } from "./configured";
import { connectionSetting, READ_LIST_MAX_AGE_MS, serviceClient } from "./connection";
import { diffByRules, diffProperties, DiffRules } from "./diff";
import {
  Created,
  PartialWriteError,
  ReadAnswer,
  StoredProviderProperty,
  TypedResourceProvider,
  Updated,
} from "./stored-provider";

/** What a verification records in state, plus its inputs (later versions must keep reading it). */
export interface VerificationOutputs extends DomainCheck, VerificationInputs {
  /**
   * True when every requested check was OK at the last check and receivers did not reject the
   * domain's mail (or `whenReceiversReject` is `warn`).
   */
  verified: boolean;
  /** Receivers' verdicts at the wait's last judgement; absent in state written before, or without records. */
  receivers?: ReceiversVerdicts;
}

/** The inputs as the engine sends them once checked, with the stored provider. */
type VerificationProps = VerificationInputs & StoredProviderProperty;

/** The state as the engine sends it, with the stored provider. */
type VerificationState = VerificationOutputs & StoredProviderProperty;

/**
 * A new domain is a new verification; new settings wait again. The records and the zone only
 * explain a wait (and make it cheaper): a change of them alone waits for nothing.
 */
const DIFF_RULES: DiffRules = {
  replace: ["domainId"],
  update: [
    "checks",
    "timeoutSeconds",
    "pollIntervalSeconds",
    "maxPollIntervalSeconds",
    "whenReceiversReject",
  ],
};

/** The verificationProvider as callers see it: every method there, each answer typed (see `TypedResourceProvider`). */
export type VerificationProvider = TypedResourceProvider<VerificationInputs, VerificationOutputs>;

/**
 * Waits until the service's DNS checks pass for a domain. Nothing is created on the service; the
 * resource records the result. On timeout it fails but stays in state (with `verified: false`),
 * so the next `up` resumes the wait; a refresh re-checks, so broken records show as
 * `verified: false` and the next `up` waits again.
 */
export const verificationProvider = createVerificationProvider();

/** The verification provider with its wait on `clock` (tests); {@link verificationProvider} uses the real one. */
export function createVerificationProvider(clock: WaitClock = {}): VerificationProvider {
  return {
    configure: rememberConfig,

    async check(_olds: unknown, news: object): Promise<CheckedInputs<VerificationInputs>> {
      return checkVerificationInputs(news);
    },

    async diff(_id: string, olds: VerificationState, news: VerificationProps): Promise<dynamic.DiffResult> {
      const diff = diffByRules(withDefaults(olds), withDefaults(news), DIFF_RULES);
      // Not verified (a timed-out wait, or a refresh that found broken records): wait again.
      const waitAgain = olds.verified !== true && diff.replaces.length === 0;
      return { ...diff, changes: diff.changes || waitAgain };
    },

    async create(inputs: VerificationProps): Promise<Created<VerificationOutputs>> {
      return { id: String(inputs.domainId), outs: await verify(inputs, clock) };
    },

    async update(
      _id: string,
      olds: VerificationState,
      news: VerificationProps,
    ): Promise<Updated<VerificationOutputs>> {
      // Verified (receivers too, when they can judge), and only the stored provider is new (see
      // storedProviderOutdated): nothing to wait for.
      const { changed } = diffProperties(withDefaults(olds), withDefaults(news), DIFF_RULES);
      if (olds.verified === true && changed.length === 0 && !needsJudgement(pickInputs(news), olds.receivers))
        return { outs: outputs(pickInputs(news), olds, undefined, olds.receivers) };
      return { outs: await verify(news, clock) };
    },

    async read(
      id: string,
      state: VerificationState,
    ): Promise<ReadAnswer<VerificationInputs, VerificationOutputs>> {
      const inputs = pickInputs(state);
      try {
        const result = await serviceClient().checkDomain(inputs.domainId);
        return { id, props: outputs(inputs, result, undefined, state.receivers), inputs };
      } catch (error) {
        if (isObjectNotFound(error)) return { id: undefined, props: {} }; // the domain is gone
        throw error;
      }
    },

    async delete(): Promise<void> {
      // Nothing exists on the service for a verification.
    },
  };
}

async function verify(inputs: VerificationProps, clock: WaitClock): Promise<VerificationOutputs> {
  // The domain's name, for people: its SPF record's name when the records are known (the SPF
  // record is at the domain itself), else looked up only once a check has answered and the wait
  // goes on, so a domain whose records are already right costs one request, its check.
  const spf = inputs.dnsRecords?.find((record) => record.purpose === "spf");
  let domain = spf ? spf.name.replace(/\.$/, "") : `Domain ${inputs.domainId}`;
  let named = spf !== undefined;
  // One request per poll, bounded by the wait: a failed poll is simply "not yet", and the next
  // poll is the retry.
  const checkOnce = async (requestTimeoutMs: number) => {
    // The poll's bound covers everything in it: 429s (which the client otherwise retries within
    // its own 60 s), the wait for this process's turn to send, and the name lookup.
    const client = serviceClient({
      retry: { maxAttempts: 1, budgetMs: requestTimeoutMs },
      checkTimeoutMs: requestTimeoutMs,
      requestTimeoutMs,
      permitWaitMs: requestTimeoutMs,
    });
    const result = await client.checkDomain(inputs.domainId);
    if (!named && failingChecks(result, inputs.checks).length > 0) {
      named = true;
      domain = (await domainName(client, inputs.domainId)) ?? domain;
    }
    return result;
  };
  let outcome: WaitOutcome;
  try {
    outcome = await waitForChecks(checkOnce, {
      ...clock,
      checks: inputs.checks,
      ...waitTimes(inputs),
      signal: kitRunStop(),
      log: (line) => log.info(`${domain}: ${line}`),
      ...verificationDiagnoser(inputs),
    });
  } catch (error) {
    if (isObjectNotFound(error))
      throw new Error(`Domain ${inputs.domainId} does not exist on the email service: nothing to verify.`, {
        cause: error,
      });
    throw error;
  }
  const outs = outputs(pickInputs(inputs), outcome.result ?? notChecked(), outcome);
  // The service passed; receivers decided (or could not) and the stack asked for a warning.
  const receiversSay = outcome.receiversAccepted !== true && (outcome.receivers || outcome.receiversError);
  if (outcome.verified) {
    if (receiversSay) log.warn(receiversMessage(domain, outcome));
    return outs;
  }

  // The client scrubs keys from its errors; scrubbed again here, as this text reaches CI logs.
  const passedService = outcome.result && failingChecks(outcome.result, inputs.checks).length === 0;
  const message = redact(
    passedService && receiversSay
      ? receiversMessage(domain, outcome)
      : timeoutMessage(domain, inputs.timeoutSeconds, inputs.checks, outcome),
    [connectionSetting("apiKey")],
  );
  // Kept in state as not verified, so the next `up` updates it, i.e. waits again.
  throw new PartialWriteError(message, String(inputs.domainId), { ...outs, __provider: inputs.__provider });
}

/**
 * The outputs after a check: its statuses, `verified` (the service's checks pass and, when they
 * were judged, receivers did not reject the mail), and receivers' verdicts when judged. A check
 * without a judgement (a refresh) keeps the last one, and a rejection stands until a wait judges
 * again.
 */
function outputs(
  inputs: VerificationInputs,
  result: DomainCheck,
  judged?: Pick<WaitOutcome, "receivers" | "receiversAccepted" | "verified">,
  last?: ReceiversVerdicts,
): VerificationOutputs {
  const receivers: ReceiversVerdicts | undefined = judged?.receivers
    ? {
        spf: judged.receivers.spf,
        dkim: judged.receivers.dkim,
        dmarc: judged.receivers.dmarc,
        accepted: judged.receiversAccepted ?? null,
      }
    : judged
      ? undefined
      : last;
  const servicePasses = failingChecks(result, inputs.checks).length === 0;
  return {
    ...inputs,
    ...result,
    ...(receivers ? { receivers } : {}),
    // Without a wait's judgement (a refresh), receivers' last one stands: one that never accepted
    // (rejected, not judged, or made before receivers were judged) is no pass.
    verified: judged ? judged.verified : servicePasses && !needsJudgement(inputs, receivers),
  };
}

/**
 * Whether the verification has still to hear receivers accept the domain's mail: it has the
 * records to judge by, the stack did not ask for a mere warning, and no wait's judgement accepted.
 */
function needsJudgement(inputs: VerificationInputs, receivers: ReceiversVerdicts | undefined): boolean {
  if ((inputs.whenReceiversReject ?? DEFAULT_WHEN_RECEIVERS_REJECT) === "warn") return false;
  return serviceMail(inputs.dnsRecords ?? []) !== undefined && receivers?.accepted !== true;
}

function pickInputs(source: VerificationInputs): VerificationInputs {
  const inputs: VerificationInputs = {
    domainId: source.domainId,
    checks: source.checks,
    timeoutSeconds: source.timeoutSeconds,
    pollIntervalSeconds: source.pollIntervalSeconds,
  };
  // Absent in state written before they were inputs: a refresh keeps them absent.
  if (source.maxPollIntervalSeconds !== undefined)
    inputs.maxPollIntervalSeconds = source.maxPollIntervalSeconds;
  if (source.dnsRecords !== undefined) inputs.dnsRecords = source.dnsRecords;
  if (source.zoneId !== undefined) inputs.zoneId = source.zoneId;
  if (source.whenReceiversReject !== undefined) inputs.whenReceiversReject = source.whenReceiversReject;
  return inputs;
}

/**
 * Properties with the defaults of inputs that state written by earlier versions lacks, so that
 * such state compares equal to the same program's inputs (and to inputs `check()` filled in).
 */
function withDefaults<T extends Partial<VerificationInputs>>(props: T): T {
  const filled = {
    ...props,
    whenReceiversReject: props.whenReceiversReject ?? DEFAULT_WHEN_RECEIVERS_REJECT,
  };
  if (props.maxPollIntervalSeconds !== undefined || typeof props.pollIntervalSeconds !== "number")
    return filled;
  return { ...filled, maxPollIntervalSeconds: defaultMaxPollInterval(props.pollIntervalSeconds) };
}

/**
 * The domain's name, or undefined when it cannot be had now (it only makes messages nicer). From
 * the process's shared list when it has one: a domain's name never changes, and that list holds
 * every domain this process made (writes are applied to it), so a stack's verifications ask once.
 */
async function domainName(client: EmailDeliveryClient, id: number): Promise<string | undefined> {
  try {
    const domains = await client.listDomains({ maxAgeMs: READ_LIST_MAX_AGE_MS });
    return domains.find((candidate) => candidate.id === id)?.name;
  } catch {
    return undefined;
  }
}
