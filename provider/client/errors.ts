import { types } from "node:util";

/**
 * One error type for every way a call to the email service can fail. `kind` is what callers
 * branch on; `code` and `serviceMessage` are what the service said. Nothing here ever holds a
 * key: messages are scrubbed before they get here, and the transport's error (whose options
 * carry the request headers) is never attached.
 */

export type ErrorKind = "auth" | "not-found" | "conflict" | "validation" | "transient";

/** What an {@link EmailApiError} says: the operation, the kind of failure and what the service said. */
export interface EmailApiErrorDetails {
  /** The API operation, e.g. `domains/create`. */
  operation: string;
  /** What kind of failure it is: what callers branch on. */
  kind: ErrorKind;
  /** HTTP status of the answer; undefined when none arrived (network error, timeout). */
  httpStatus?: number;
  /** The service's error code (`DomainNotFound`, `ValidationError`, …) or a network error code. */
  code?: string;
  /** What the service (or the network layer) said, without any key in it. */
  serviceMessage: string;
  /** Set when a write may or may not have been applied (the answer was lost). */
  outcomeUnknown?: boolean;
  /** Requests sent for this operation, retries included. */
  attempts?: number;
  /** Milliseconds the server asked us to wait (429/503 `Retry-After`). */
  retryAfterMs?: number;
  /**
   * On a conflict: the object that holds the name, where it is known. After a create's lost answer
   * (`AnswerLostObjectExists`), the object found, which this call may or may not have made.
   */
  existing?: ExistingObject;
  /**
   * The answer is not the email service's (a web page, an unknown API path, an empty body, JSON of
   * another API): the base URL leads elsewhere. Set by the client where it reads answers.
   */
  notTheService?: true;
  /**
   * The message's first line, when the client's caller can say what the failure means in its users'
   * terms: the setting, what is wrong with it, what to do (`ClientSettings.explainFailure`). The
   * operation's own line follows it.
   */
  headline?: string;
  /** Lines after the operation's: advice that fits only some cases, worded as such. */
  advice?: string;
}

/** What is known of an object another party (or an earlier run) made. */
export interface ExistingObject {
  /** Its numeric id. */
  id: number;
  /** When the service made it; null when the service does not say. */
  createdAt: string | null;
}

/**
 * The error every client operation fails with. Recognise one with `isEmailApiError()` where the
 * error may come from another copy of this package's modules (jest's module registries, the test
 * kit's Node realm, two installs in one program): `instanceof` holds only within one copy.
 */
export class EmailApiError extends Error implements Readonly<EmailApiErrorDetails> {
  /** Always `EmailApiError`: what {@link isEmailApiError} checks, with `kind` and `operation`. */
  declare readonly name: "EmailApiError";
  /** {@inheritDoc EmailApiErrorDetails.operation} */
  declare readonly operation: string;
  /** {@inheritDoc EmailApiErrorDetails.kind} */
  declare readonly kind: ErrorKind;
  /** {@inheritDoc EmailApiErrorDetails.httpStatus} */
  declare readonly httpStatus?: number;
  /** {@inheritDoc EmailApiErrorDetails.code} */
  declare readonly code?: string;
  /** {@inheritDoc EmailApiErrorDetails.serviceMessage} */
  declare readonly serviceMessage: string;
  /** {@inheritDoc EmailApiErrorDetails.outcomeUnknown} */
  declare readonly outcomeUnknown?: boolean;
  /** {@inheritDoc EmailApiErrorDetails.attempts} */
  declare readonly attempts?: number;
  /** {@inheritDoc EmailApiErrorDetails.retryAfterMs} */
  declare readonly retryAfterMs?: number;
  /** {@inheritDoc EmailApiErrorDetails.existing} */
  declare readonly existing?: ExistingObject;
  /** {@inheritDoc EmailApiErrorDetails.notTheService} */
  declare readonly notTheService?: true;
  /** {@inheritDoc EmailApiErrorDetails.headline} */
  declare readonly headline?: string;
  /** {@inheritDoc EmailApiErrorDetails.advice} */
  declare readonly advice?: string;

  /** An error whose message is made from `details`; it holds each detail given. */
  constructor(details: EmailApiErrorDetails) {
    super(formatMessage(details));
    // Own properties, and only those given: what callers (and jest's matchers) have always seen.
    const fields: Record<string, unknown> = { name: "EmailApiError" };
    for (const [key, value] of Object.entries(details)) if (value !== undefined) fields[key] = value;
    Object.assign(this, fields);
  }
}

/** Builds an {@link EmailApiError}: the same as `new EmailApiError(details)`. */
export function emailApiError(details: EmailApiErrorDetails): EmailApiError {
  return new EmailApiError(details);
}

/** The details of an error, without the Error machinery. */
export function errorDetails(error: EmailApiError): EmailApiErrorDetails {
  return {
    operation: error.operation,
    kind: error.kind,
    httpStatus: error.httpStatus,
    code: error.code,
    serviceMessage: error.serviceMessage,
    outcomeUnknown: error.outcomeUnknown,
    attempts: error.attempts,
    retryAfterMs: error.retryAfterMs,
    existing: error.existing,
    notTheService: error.notTheService,
    headline: error.headline,
    advice: error.advice,
  };
}

/** The same error with more context (attempt count, unknown outcome). */
export function withDetails(error: EmailApiError, extra: Partial<EmailApiErrorDetails>): EmailApiError {
  return new EmailApiError({ ...errorDetails(error), ...extra });
}

/**
 * Whether `error` is an {@link EmailApiError}, by its name and fields: also one made by another
 * copy of this package's modules, which `instanceof` does not recognise.
 */
export function isEmailApiError(error: unknown): error is EmailApiError {
  return isError(error) && error.name === "EmailApiError" && "kind" in error && "operation" in error;
}

/**
 * Whether `value` is an Error of any realm: the test kit runs providers in Node's own realm, whose
 * `Error` is not the one of jest's sandbox, so `instanceof Error` fails on the errors they throw.
 * @internal
 */
export function isError(value: unknown): value is Error {
  return value instanceof Error || types.isNativeError(value);
}

/**
 * True when the service said this object does not exist (e.g. `DomainNotFound`). A bare HTTP 404
 * without the service's envelope means a wrong base URL, not a missing object, so it is not one.
 */
export function isObjectNotFound(error: unknown): boolean {
  return isEmailApiError(error) && error.kind === "not-found" && error.code !== undefined;
}

/**
 * The operation's line: what failed, the service's code and words, and the facts that help (an HTTP
 * status other than 2xx: Postal answers its errors with HTTP 200, which says nothing to a user),
 * after the headline when there is one, and before the advice.
 */
function formatMessage(details: EmailApiErrorDetails): string {
  const code = details.code ? `[${details.code}] ` : "";
  const status = details.httpStatus;
  const facts = [
    status !== undefined && (status < 200 || status > 299) ? `HTTP ${status}` : undefined,
    details.attempts && details.attempts > 1 ? `after ${details.attempts} attempts` : undefined,
  ].filter(Boolean);
  const unknown = details.outcomeUnknown
    ? " The request may or may not have been applied: its answer was lost."
    : "";
  // The service's words often end with a period of their own: one is enough.
  const said = details.serviceMessage.replace(/\.+$/, "");
  const line = `${details.operation} failed (${details.kind}): ${code}${said}${
    facts.length ? ` (${facts.join(", ")})` : ""
  }.${unknown}`;
  return [details.headline, line, details.advice].filter(Boolean).join("\n");
}
