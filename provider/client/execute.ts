import { EmailApiError, EmailApiErrorDetails, ExistingObject, isEmailApiError, withDetails } from "./errors";
import { emailApiWaits, RetryPolicy } from "./retry";
import { Clock, retrying, Try } from "./retry-loop";
import type { ClientSettings } from "./settings";
import { neverSent, OutgoingRequest, SendResult } from "./transport";

/** One operation of the API, and what may be done when its answer is lost. */
export interface Operation<T> extends OutgoingRequest {
  parse: (data: unknown) => T;
  timeoutMs?: number;
  policy?: Partial<RetryPolicy>;
  /**
   * What a retry may do after a try whose answer was lost (timeout, dropped connection, 5xx):
   * - "resend": the operation is idempotent (lists, checks, updates, deletes);
   * - "stop": never resend (sending a message twice would send two messages);
   * - a lookup by natural key (creates): the lost request may have created the object, so look
   *   first; resend only if no object of that key is there. One that is there is never taken for
   *   this call's (natural-keys.ts says why): the operation fails with `unproven(holder)`.
   */
  afterLostAnswer: "resend" | "stop" | LookupByKey;
  /**
   * A read changes nothing: a 2xx that is not the service's answer means a wrong base URL. On
   * anything else it is an answer lost after the service may have done the work.
   */
  read?: true;
  /** Turns an error on a retry after a lost answer into success (e.g. delete → already gone). */
  settleAfterLostAnswer?: (error: EmailApiError) => { value: T } | undefined;
}

/** How a create looks for the object of its natural key after a lost answer. */
export interface LookupByKey {
  /** The object holding the key, or undefined when none does; one request, within `timeoutMs`. */
  lookup: (timeoutMs: number) => Promise<ExistingObject | undefined>;
  /** The failure when one does: the object may be this call's or another party's. */
  unproven: (holder: ExistingObject) => EmailApiError;
}

/** What the loop needs from outside: one request at a time, time, and the key in use. */
export interface ExecuteContext {
  /** Sends one request; never throws. */
  send: (request: OutgoingRequest, attempt: number, timeoutMs: number) => Promise<SendResult>;
  /** Switches to another key after the service refused this one; false when there is none left. */
  useFallbackKey: () => boolean;
  policy: RetryPolicy;
  /** Timeout of one request unless the operation has its own. */
  requestTimeoutMs: number;
  random: () => number;
  clock: Clock;
  /** How a failure is explained to the client's caller: `authFailureHint`, `explainFailure`. */
  explain?: Pick<ClientSettings, "authFailureHint" | "explainFailure">;
}

/**
 * Where an operation stands between two requests. One value, so that what was lost and what comes
 * next cannot disagree. `failure` is the latest error: it sets the wait before the next request, and
 * is what the operation fails with when the attempts or the budget run out.
 */
export type Phase =
  /** Nothing was lost so far (failures, if any, prove nothing was done): send. */
  | { phase: "sending"; failure?: EmailApiError }
  /** An answer was lost, so the request may have been applied: send again (an idempotent operation,
   *  or a lookup found nothing). */
  | { phase: "resending"; failure: EmailApiError }
  /** An answer was lost: look the object up by its natural key before sending again. */
  | { phase: "lookingUp"; failure: EmailApiError }
  /** A resend after a lost answer was refused as a duplicate: the lookup names the holder, which
   *  the lost request may have made (`unproven`), or finds none (then `conflict` is the failure). */
  | { phase: "confirming"; failure: EmailApiError; conflict: EmailApiError };

/** What one request leads to: a value, a failure, or the next phase (`wait`: back off first). */
type Step<T> =
  | { to: "done"; value: T }
  | { to: "fail"; error: EmailApiError; outcomeUnknown?: true }
  | { to: "next"; phase: Phase; wait: boolean; refused?: true };

/**
 * Runs an operation through the retry loop (`retrying`, the email API's waits). Each try sends one
 * request (the operation itself, or a lookup by natural key after a lost answer), so `maxAttempts`
 * bounds every request made, lookups included, and each request's timeout is cut so that none
 * outlives the time budget. The `Phase` decides what the next try is.
 */
export async function execute<T>(op: Operation<T>, context: ExecuteContext): Promise<T> {
  const byKey = typeof op.afterLostAnswer === "object" ? op.afterLostAnswer : undefined;
  let state: Phase = { phase: "sending" };
  let requests = 0;

  const hint = context.explain?.authFailureHint;
  const fail = (cause: EmailApiError, extra: Partial<EmailApiErrorDetails> = {}) => {
    const error = withDetails(cause, {
      operation: op.operation,
      attempts: requests,
      outcomeUnknown: state.phase !== "sending" || undefined,
      ...(cause.kind === "auth" && hint
        ? { serviceMessage: `${cause.serviceMessage.replace(/\.+$/, "")}. ${hint}` }
        : {}),
      ...extra,
    });
    const explained = context.explain?.explainFailure?.(error);
    return explained ? withDetails(error, explained) : error;
  };

  return retrying<T, EmailApiError>({
    plan: { ...emailApiWaits, ...context.policy, ...op.policy },
    clock: context.clock,
    random: context.random,
    requestTimeoutMs: op.timeoutMs ?? context.requestTimeoutMs,
    retryAfterMs: (failure) => failure.retryAfterMs,
    giveUp: () => fail(state.phase === "confirming" ? state.conflict : state.failure!),
    async attempt(n, timeoutMs): Promise<Try<T, EmailApiError>> {
      requests = n;
      let step: Step<T>;
      let queuedMs = 0;
      if (state.phase === "lookingUp" || state.phase === "confirming") {
        step = await lookStep(state, byKey!, timeoutMs);
      } else {
        const sent = await context.send(op, n, timeoutMs);
        queuedMs = sent.queuedMs;
        step = answerStep(op, state, sent, byKey !== undefined, context.useFallbackKey);
      }
      if (step.to === "done") return step;
      if (step.to === "fail")
        return { to: "fail", error: fail(step.error, step.outcomeUnknown ? { outcomeUnknown: true } : {}) };
      state = step.phase;
      return { to: "retry", failure: state.failure, wait: step.wait, refused: step.refused, queuedMs };
    },
  });
}

/** What an answer (or its absence) to the operation's own request leads to. */
function answerStep<T>(
  op: Operation<T>,
  state: Extract<Phase, { phase: "sending" | "resending" }>,
  sent: SendResult,
  hasLookup: boolean,
  useFallbackKey: () => boolean,
): Step<T> {
  if (sent.ok) {
    if (op.read && sent.data === undefined) {
      // An empty success to a list: a catch-all or health route answered, not the service.
      const serviceMessage = "answered with an empty body (is the base URL right?)";
      return {
        to: "fail",
        error: new EmailApiError({
          operation: op.operation,
          kind: "validation",
          serviceMessage,
          notTheService: true,
        }),
      };
    }
    const parsed = parseAnswer(op, sent.data);
    if (parsed.ok) return { to: "done", value: parsed.value };
    // Created, but the answer is unreadable: find the object instead.
    if (hasLookup) return { to: "next", phase: { phase: "lookingUp", failure: parsed.error }, wait: false };
    return { to: "fail", error: parsed.error };
  }
  if (sent.unreadableSuccess && op.read) return { to: "fail", error: sent.error };
  // A write answered 2xx but unreadably (cut short, a proxy's page): it may have been done.
  const error = sent.unreadableSuccess ? asLostAnswer(sent.error) : sent.error;
  if (state.phase === "resending") {
    const settled = op.settleAfterLostAnswer?.(error);
    if (settled) return { to: "done", value: settled.value };
    if (hasLookup && (error.kind === "conflict" || error.kind === "validation")) {
      return { to: "next", phase: { phase: "confirming", failure: error, conflict: error }, wait: false };
    }
  }
  // A key the service says is not valid did nothing: send again at once with the other one.
  // (Not on other refusals: a suspended server or a proxy's 403 says nothing of the key.)
  if (isKeyRefused(error) && (op.auth ?? "server") === "server" && useFallbackKey()) {
    return { to: "next", phase: state, wait: false };
  }
  if (error.kind !== "transient") return { to: "fail", error };
  const refused = error.httpStatus === 429 ? { refused: true as const } : {};
  // A 429 was refused before any work; a refused connection never arrived. So was a 503 the
  // service sends, but a proxy's 503 (Envoy's after the upstream closed, Heroku's router while
  // the app finishes) can follow work done: a create looks before it sends again.
  const refusedBeforeWork = error.httpStatus === 429 || (error.httpStatus === 503 && !hasLookup);
  const mayHaveBeenApplied = !refusedBeforeWork && !neverSent(error);
  if (!mayHaveBeenApplied)
    return { to: "next", phase: { phase: state.phase, failure: error }, wait: true, ...refused };
  if (op.afterLostAnswer === "stop") return { to: "fail", error, outcomeUnknown: true };
  const phase: Phase = hasLookup
    ? { phase: "lookingUp", failure: error }
    : { phase: "resending", failure: error };
  return { to: "next", phase, wait: true };
}

/** What a lookup by natural key after a lost answer leads to. */
async function lookStep<T>(
  state: Extract<Phase, { phase: "lookingUp" | "confirming" }>,
  byKey: LookupByKey,
  timeoutMs: number,
): Promise<Step<T>> {
  let holder: ExistingObject | undefined;
  try {
    holder = await byKey.lookup(timeoutMs);
  } catch (error) {
    if (!isEmailApiError(error)) throw error;
    if (error.kind !== "transient") return { to: "fail", error }; // outcome unknown: the phase says so
    // Wait, then look again: never resend without knowing.
    return { to: "next", phase: { ...state, failure: error }, wait: true };
  }
  // This call's lost create, or another party's: nothing tells which, so it is not claimed.
  if (holder !== undefined) return { to: "fail", error: byKey.unproven(holder) };
  // Refused as a duplicate, yet no holder listed (on another server): the refusal stands.
  if (state.phase === "confirming") return { to: "fail", error: state.conflict };
  // The lost request made nothing (yet): send again at once.
  return { to: "next", phase: { phase: "resending", failure: state.failure }, wait: false };
}

function parseAnswer<T>(
  op: Operation<T>,
  data: unknown,
): { ok: true; value: T } | { ok: false; error: EmailApiError } {
  try {
    return { ok: true, value: op.parse(data) };
  } catch (error) {
    const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
    const detail = issues?.length
      ? issues
          .slice(0, 3)
          .map((issue) => `${issue.path.map(String).join(".") || "data"}: ${issue.message}`)
          .join("; ")
      : (error as Error).message;
    return {
      ok: false,
      error: new EmailApiError({
        operation: op.operation,
        kind: "validation",
        serviceMessage: `the answer has an unexpected shape (${detail})`,
      }),
    };
  }
}

/**
 * The service says the key itself is not valid (Postal's code, or a plain 401): another key may
 * do, and the message says to set one.
 */
export function isKeyRefused(error: EmailApiError): boolean {
  return error.kind === "auth" && (error.code === "InvalidServerAPIKey" || error.httpStatus === 401);
}

/** An unreadable 2xx to a write: as if the answer was lost on the way. */
function asLostAnswer(error: EmailApiError): EmailApiError {
  return withDetails(error, {
    kind: "transient",
    serviceMessage: `${error.serviceMessage.replace(/ \(is the base URL right\?\)$/, "")}, so the outcome is unknown`,
  });
}

export { systemTime } from "./retry-loop";
