import { EmailApiError, ErrorKind } from "./errors";
import { redact } from "./redact";
import { emailApiRetries, isRetryable, parseRetryAfter } from "./retry";

/** An HTTP answer as it came off the wire. */
export interface RawAnswer {
  operation: string;
  httpStatus: number;
  body: string;
  /** The `Retry-After` header, if any. */
  retryAfter?: string;
}

export type Interpretation = { ok: true; data: unknown } | Failure;

interface Failure {
  ok: false;
  error: EmailApiError;
  /**
   * A 2xx whose body is not the service's answer (cut short, a web page, other JSON). On a
   * read it means a wrong base URL; on a write the service may have done the work, so the
   * outcome is unknown (the client decides which, knowing the operation).
   */
  unreadableSuccess?: true;
}

/**
 * Reads an answer the way every known deployment of the service can give it:
 * - Postal: HTTP 200 with `{status: "success"|"error"|"parameter-error", time, flags, data}`;
 * - Moonrope-era Postal: also `access-denied`, `not-found`, `validation-error`, … statuses;
 * - forks and proxies: 4xx/5xx with or without a JSON body, or a body that is not JSON.
 * Failures become one EmailApiError; `secrets` are scrubbed from every text, and Postal's echo of
 * a rejected key (`data.token`) is never read.
 *
 * @internal The transport's parser, exported for this package's tests; not part of the API.
 */
export function interpretAnswer(answer: RawAnswer, secrets: readonly (string | undefined)[]): Interpretation {
  const { operation, httpStatus } = answer;
  const retryAfterMs = parseRetryAfter(answer.retryAfter);
  const fail = (kind: ErrorKind, serviceMessage: string, code?: string, notTheService?: true): Failure => ({
    ok: false,
    error: new EmailApiError({
      operation,
      kind,
      httpStatus,
      code: code === undefined ? undefined : redact(code, secrets),
      serviceMessage: redact(serviceMessage, secrets),
      retryAfterMs,
      notTheService,
    }),
  });

  const body = parseJsonObject(answer.body);
  const httpOk = httpStatus >= 200 && httpStatus < 300;

  if (!body) {
    // An empty 2xx (e.g. 204 to a delete) is a success without data. Any other 2xx that is not
    // JSON is a different server answering (a web page at a wrong base URL): retrying won't help.
    if (httpOk && answer.body.trim() === "") return { ok: true, data: undefined };
    if (httpOk) {
      return {
        ...fail(
          "validation",
          `answered HTTP ${httpStatus} with a body that is not JSON (is the base URL right?)`,
          undefined,
          true,
        ),
        unreadableSuccess: true,
      };
    }
    const noSuchPath = httpStatus === 404 || undefined; // no API there: a base URL that leads elsewhere
    return fail(
      kindForHttpStatus(httpStatus),
      describeNonJson(httpStatus, redact(answer.body, secrets)),
      undefined,
      noSuchPath,
    );
  }

  const status = typeof body.status === "string" ? body.status : undefined;
  const data = isObject(body.data) ? body.data : {};
  const message = firstString(data.message, body.message, body.error, data.error);

  if (status === "success" && "data" in body) {
    if (httpOk) return { ok: true, data: body.data };
    return fail(kindForHttpStatus(httpStatus), message ?? `answered HTTP ${httpStatus}`);
  }
  // A server error or throttling answer is transient whatever its body says.
  const httpKind = httpOk ? undefined : kindForHttpStatus(httpStatus);
  const overrideTransient = httpKind === "transient" ? "transient" : undefined;

  switch (status) {
    case "error": {
      const code = typeof data.code === "string" ? data.code : undefined;
      const kind = overrideTransient ?? kindForCode(code, data.status) ?? httpKind ?? "validation";
      return fail(kind, message ?? code ?? "the service reported an error without a message", code);
    }
    case "parameter-error":
      return fail(
        overrideTransient ?? "validation",
        message ?? "a parameter is missing or invalid",
        "ParameterError",
      );
    case "validation-error":
      return fail(
        overrideTransient ?? "validation",
        describeErrors(data.errors) ?? message ?? "validation failed",
        "ValidationError",
      );
    case "access-denied":
      return fail(overrideTransient ?? "auth", message ?? "access denied", "AccessDenied");
    case "not-found":
      return fail(overrideTransient ?? "not-found", message ?? "not found", "NotFound");
    case "internal-server-error":
      return fail("transient", message ?? "the service had an internal error", "InternalServerError");
  }

  if (httpKind) return fail(httpKind, message ?? `answered HTTP ${httpStatus}`);
  // 2xx JSON that is not the service's envelope: a different API is answering.
  return {
    ...fail(
      "validation",
      `answered HTTP ${httpStatus} with JSON that is not the service's envelope`,
      undefined,
      true,
    ),
    unreadableSuccess: true,
  };
}

/** The kind a service error code means, or undefined when the code is not one we know. */
export function kindForCode(code: string | undefined, dataStatus?: unknown): ErrorKind | undefined {
  if (dataStatus === "conflict") return "conflict";
  if (dataStatus === "not_found") return "not-found";
  if (!code) return undefined;
  if (
    /^(AccessDenied|InvalidServerAPIKey|InvalidMasterKey|ServerSuspended)$|APIKey|Unauthori[sz]ed/.test(code)
  ) {
    return "auth";
  }
  if (/NotFound$/.test(code)) return "not-found";
  if (/(AlreadyExists|NameExists)$|^Duplicate/.test(code)) return "conflict";
  if (/^(InternalServerError|ServiceUnavailable|TooManyRequests)$|Timeout/.test(code)) return "transient";
  if (/^(ValidationError|ParameterError)$|^Invalid|^No[A-Z]|TooMany|Missing/.test(code)) return "validation";
  return undefined;
}

/**
 * The kind of failure an HTTP error status means: 401 and 403 `auth`, 404 `not-found`, 409
 * `conflict`, 408, 425, 429 and 5xx `transient`, any other `validation`.
 */
export function kindForHttpStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return "auth";
  if (status === 404) return "not-found";
  if (status === 409) return "conflict";
  if (isRetryable({ status }, emailApiRetries)) return "transient";
  return "validation";
}

/** `body` must be redacted already: the excerpt may cut a key short. */
function describeNonJson(status: number, body: string): string {
  if (status === 404) return "answered HTTP 404: no such API path (check the base URL)";
  const text = body
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return excerpt ? `answered HTTP ${status}: ${excerpt}` : `answered HTTP ${status} with an empty body`;
}

function describeErrors(errors: unknown): string | undefined {
  if (Array.isArray(errors)) {
    const texts = errors.filter((entry): entry is string => typeof entry === "string");
    return texts.length ? texts.join("; ") : undefined;
  }
  if (isObject(errors)) {
    const texts = Object.entries(errors).map(
      ([field, value]) => `${field} ${Array.isArray(value) ? value.join(", ") : String(value)}`,
    );
    return texts.length ? texts.join("; ") : undefined;
  }
  return undefined;
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === "string" && value.trim() !== "");
}
