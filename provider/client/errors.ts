/**
 * One error type for every way a call to the email service can fail. `kind` is what callers
 * branch on; `code` and `serviceMessage` are what the service said. Nothing here ever holds a
 * key: messages are scrubbed before they get here, and the transport's error (whose options
 * carry the request headers) is never attached.
 */

export type ErrorKind = "auth" | "not-found" | "conflict" | "validation" | "transient";

export interface EmailApiErrorDetails {
  /** The API operation, e.g. `domains/create`. */
  operation: string;
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
}

export class EmailApiError extends Error implements EmailApiErrorDetails {
  override readonly name = "EmailApiError";
  readonly operation: string;
  readonly kind: ErrorKind;
  readonly httpStatus?: number;
  readonly code?: string;
  readonly serviceMessage: string;
  readonly outcomeUnknown?: boolean;
  readonly attempts?: number;
  readonly retryAfterMs?: number;

  constructor(details: EmailApiErrorDetails) {
    super(formatMessage(details));
    this.operation = details.operation;
    this.kind = details.kind;
    this.httpStatus = details.httpStatus;
    this.code = details.code;
    this.serviceMessage = details.serviceMessage;
    this.outcomeUnknown = details.outcomeUnknown;
    this.attempts = details.attempts;
    this.retryAfterMs = details.retryAfterMs;
  }

  /** The same error with more context (attempt count, unknown outcome). */
  with(extra: Partial<EmailApiErrorDetails>): EmailApiError {
    return new EmailApiError({ ...this.details(), ...extra });
  }

  details(): EmailApiErrorDetails {
    return {
      operation: this.operation,
      kind: this.kind,
      httpStatus: this.httpStatus,
      code: this.code,
      serviceMessage: this.serviceMessage,
      outcomeUnknown: this.outcomeUnknown,
      attempts: this.attempts,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

export function isEmailApiError(error: unknown): error is EmailApiError {
  return error instanceof Error && error.name === "EmailApiError" && "kind" in error;
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
