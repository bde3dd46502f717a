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
   * On a conflict found before anything was sent: the object that already holds the name (the
   * create was not sent, so this call did not make it).
   */
  existing?: ExistingObject;
}

/** What is known of an object another party (or an earlier run) made. */
export interface ExistingObject {
  /** Its numeric id. */
  id: number;
  /** When the service made it; null when the service does not say. */
  createdAt: string | null;
}

/**
 * A plain `Error` carrying the details. Not a subclass: Pulumi's closure serializer turns
 * `class X extends Error` into `Error.call(this, …)`, which leaves `message` and `stack` unset in
 * the serialized provider. Build one with `emailApiError()`, recognise one with `isEmailApiError()`.
 */
export type EmailApiError = Error &
  Readonly<EmailApiErrorDetails> & {
    /** Always `EmailApiError`: what {@link isEmailApiError} checks, with `kind` and `operation`. */
    readonly name: "EmailApiError";
  };

/** Builds an {@link EmailApiError}, its message made from the details. */
export function emailApiError(details: EmailApiErrorDetails): EmailApiError {
  const error = new Error(formatMessage(details)) as Error & EmailApiErrorDetails;
  error.name = "EmailApiError";
  for (const [key, value] of Object.entries(details)) {
    if (value !== undefined) (error as unknown as Record<string, unknown>)[key] = value;
  }
  return error as EmailApiError;
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
  };
}

/** The same error with more context (attempt count, unknown outcome). */
export function withDetails(error: EmailApiError, extra: Partial<EmailApiErrorDetails>): EmailApiError {
  return emailApiError({ ...errorDetails(error), ...extra });
}

/** Whether `error` is an {@link EmailApiError} (by its name and fields: it is not a class). */
export function isEmailApiError(error: unknown): error is EmailApiError {
  return error instanceof Error && error.name === "EmailApiError" && "kind" in error && "operation" in error;
}

/**
 * True when the service said this object does not exist (e.g. `DomainNotFound`). A bare HTTP 404
 * without the service's envelope means a wrong base URL, not a missing object, so it is not one.
 */
export function isObjectNotFound(error: unknown): boolean {
  return isEmailApiError(error) && error.kind === "not-found" && error.code !== undefined;
}

function formatMessage(details: EmailApiErrorDetails): string {
  const code = details.code ? `[${details.code}] ` : "";
  const facts = [
    details.httpStatus !== undefined ? `HTTP ${details.httpStatus}` : undefined,
    details.attempts && details.attempts > 1 ? `after ${details.attempts} attempts` : undefined,
  ].filter(Boolean);
  const unknown = details.outcomeUnknown
    ? " The request may or may not have been applied: its answer was lost."
    : "";
  return `${details.operation} failed (${details.kind}): ${code}${details.serviceMessage}${
    facts.length ? ` (${facts.join(", ")})` : ""
  }.${unknown}`;
}
