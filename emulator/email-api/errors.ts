/**
 * The two ways an action stops early. Actions throw them; the service renders them into the
 * envelope (HTTP 200), exactly as Postal's `render_error` / `render_parameter_error` would.
 * Anything else thrown is a bug or a "database" failure and becomes HTTP 500.
 */

/** `status: "error"`, `data: {...details, code}`. */
export class ApiError extends Error {
  /** The error's name, `ApiError`. */
  override name = "ApiError";

  constructor(
    /** The service's error code, e.g. `DomainNotFound`. */
    readonly code: string,
    /** Everything in `data` besides `code`; usually `{ message }`. */
    readonly details: Record<string, unknown>,
  ) {
    super(`${code}: ${String(details.message ?? "")}`);
  }
}

/** `status: "parameter-error"`, `data: { message }`. */
export class ParameterError extends Error {
  /** The error's name, `ParameterError`. */
  override name = "ParameterError";
}

/**
 * A value the real database would refuse (MySQL strict mode, `varchar(255)`): Postal answers
 * such requests with a 500, and so do we.
 */
export class DatabaseError extends Error {
  override name = "DatabaseError";
}
