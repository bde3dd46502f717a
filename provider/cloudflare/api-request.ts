import { isError } from "../client/errors";
import { redact } from "../client/redact";
import { BaseUrlRefusal, baseUrlRefusal, checkBaseUrl } from "../client/base-url";
import {
  cloudflareClientRetries,
  cloudflareClientRetry,
  isRetryable,
  parseRetryAfter,
  RetryableAnswers,
  RetryPlan,
} from "../client/retry";
import { Clock, retrying, Try } from "../client/retry-loop";

/**
 * Requests to Cloudflare's v4 API, as its clients send them (`Authorization: Bearer`, JSON bodies,
 * the v4 envelope): one request (`send`), or one through the retry loop (`call`) with the plan and
 * the retryable answers the connection was given. The package's DNS-records client uses it with
 * its own plan; the test kit's model of the Cloudflare provider with the provider's.
 */

export interface CloudflareApiSettings {
  /** e.g. `https://api.cloudflare.com/client/v4`. */
  baseUrl: string;
  apiToken: string;
  /** Per request, cut to what is left of the budget. @default 30000 */
  requestTimeoutMs?: number;
  /** For everything one call may take, retries included. @default the plan's (330000) */
  budgetMs?: number;
  /** Waits and bounds. @default cloudflareClientRetry */
  retry?: RetryPlan;
  /** Which answers are tried again. @default cloudflareClientRetries: 429, 5xx, no answer */
  retryable?: RetryableAnswers;
  /** Injected for tests. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** Injected for tests. @default Date.now */
  now?: () => number;
  /** Source of jitter. @default Math.random */
  random?: () => number;
}

/** Cloudflare's answer envelope. */
export interface Envelope {
  success?: boolean;
  errors?: { code?: number; message?: string }[];
  result?: unknown;
  result_info?: { page?: number; total_pages?: number };
}

/** One answer: HTTP status and envelope (undefined when the body is not JSON), or why none came. */
export type Answer =
  | {
      kind: "answered";
      status: number;
      envelope: Envelope | undefined;
      text: string;
      retryAfterMs?: number;
      /** Cloudflare's word on whether to try again (`true`/`false`), when it gives one. */
      shouldRetry?: string;
    }
  | { kind: "lost"; reason: string };

/** A failed call: what was asked, Cloudflare's status and error codes, never the token. */
export class CloudflareApiError extends Error {
  constructor(
    message: string,
    /** Cloudflare's error codes (e.g. 81058, "an identical record already exists"). */
    readonly codes: number[],
    /** Undefined when no answer arrived. */
    readonly httpStatus: number | undefined,
  ) {
    super(message);
    this.name = "CloudflareApiError";
  }
}

export function isCloudflareApiError(error: unknown): error is CloudflareApiError {
  return isError(error) && Array.isArray((error as Partial<CloudflareApiError>).codes);
}

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** What a retry of a request whose answer was lost may do: send it again, or look first. */
export type AfterLostAnswer<T> = "resend" | { lookup: () => Promise<T | undefined> };

export interface CloudflareConnection {
  readonly baseUrl: string;
  /** One request, no retry; never throws. */
  send(method: Method, path: string, body?: unknown, timeoutMs?: number): Promise<Answer>;
  /**
   * A request through the retry loop: the first answer that is not retryable, or the last one when
   * the tries or the time run out. `afterLostAnswer` (default `resend`) says what follows an answer
   * that may hide work done (no answer, or a retryable status other than 429): a lookup's find is
   * returned instead of an answer.
   */
  call(method: Method, path: string, body?: unknown): Promise<Answer>;
  call<T>(
    method: Method,
    path: string,
    body: unknown,
    afterLostAnswer: AfterLostAnswer<T>,
  ): Promise<Answer | { found: T }>;
  /** The error for a call that failed: `what` was asked, what Cloudflare answered; never the token. */
  failure(what: string, answer: Answer): CloudflareApiError;
}

/** Thrown by the loop when out of tries, to return the last answer. */
class OutOfTries {
  constructor(readonly answer: Answer) {}
}

/** A connection to one base URL with one token. Build it inside provider methods, where the token is read. */
export function cloudflareConnection(settings: CloudflareApiSettings): CloudflareConnection {
  const baseUrl = checkedBaseUrl(settings.baseUrl, settings.apiToken);
  const timeoutMs = settings.requestTimeoutMs ?? 30_000;
  const plan = settings.retry ?? cloudflareClientRetry;
  const retryable = settings.retryable ?? cloudflareClientRetries;
  const clock: Clock = {
    now: settings.now ?? Date.now,
    sleep: settings.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
  };
  const secrets = [settings.apiToken];
  const headers = {
    authorization: `Bearer ${settings.apiToken}`,
    accept: "application/json",
    "user-agent": "pulumi-email-delivery",
  };

  async function send(method: Method, path: string, body?: unknown, timeout = timeoutMs): Promise<Answer> {
    try {
      // Node's own fetch: no module to load (a test runner's registry cannot get in the way), and
      // its sockets and timers are not a test's fake ones.
      const response = await fetch(`${baseUrl}/${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: "manual",
        signal: AbortSignal.timeout(timeout),
      });
      const text = await response.text();
      let envelope: Envelope | undefined;
      try {
        envelope = JSON.parse(text) as Envelope;
      } catch {
        envelope = undefined;
      }
      return {
        kind: "answered",
        status: response.status,
        envelope,
        text,
        retryAfterMs: parseRetryAfter(response.headers.get("retry-after"), clock.now()),
        shouldRetry: response.headers.get("x-should-retry") ?? undefined,
      };
    } catch (error) {
      return { kind: "lost", reason: lostReason(error) };
    }
  }

  const retries = (answer: Answer) => answer.kind === "lost" || isRetryable(answer, retryable);

  function call(method: Method, path: string, body?: unknown): Promise<Answer>;
  function call<T>(
    method: Method,
    path: string,
    body: unknown,
    afterLostAnswer: AfterLostAnswer<T>,
  ): Promise<Answer | { found: T }>;
  async function call<T>(
    method: Method,
    path: string,
    body?: unknown,
    afterLostAnswer: AfterLostAnswer<T> = "resend",
  ): Promise<Answer | { found: T }> {
    try {
      return await retrying<Answer | { found: T }, Answer>({
        plan: settings.budgetMs === undefined ? plan : { ...plan, budgetMs: settings.budgetMs },
        clock,
        random: settings.random ?? Math.random,
        requestTimeoutMs: timeoutMs,
        retryAfterMs: (answer) => (answer.kind === "answered" ? answer.retryAfterMs : undefined),
        giveUp: (answer) => new OutOfTries(answer),
        async attempt(_n, timeout): Promise<Try<Answer | { found: T }, Answer>> {
          const answer = await send(method, path, body, timeout);
          if (!retries(answer)) return { to: "done", value: answer };
          // A 429 proves nothing was done; anything else may hide work done: look before resending.
          const refused = answer.kind === "answered" && answer.status === 429;
          if (!refused && afterLostAnswer !== "resend") {
            const found = await afterLostAnswer.lookup();
            if (found !== undefined) return { to: "done", value: { found } };
          }
          return { to: "retry", failure: answer, wait: true, ...(refused ? { refused: true } : {}) };
        },
      });
    } catch (error) {
      if (error instanceof OutOfTries) return error.answer;
      throw error;
    }
  }

  function failure(what: string, answer: Answer): CloudflareApiError {
    let message: string;
    let codes: number[] = [];
    let httpStatus: number | undefined;
    if (answer.kind === "lost") {
      message = `Cloudflare ${what} failed: no answer from ${baseUrl} (${answer.reason})`;
    } else {
      httpStatus = answer.status;
      const errors = answer.envelope?.errors ?? [];
      codes = errors.map((error) => Number(error.code)).filter(Number.isFinite);
      const said = errors.map((error) => `${error.code} ${error.message ?? ""}`.trim()).join("; ");
      // A 5xx page (Cloudflare's own edge answers 502, 520-527 in HTML) says the API is failing, not that it is elsewhere.
      const notJson =
        answer.status >= 500
          ? ", an error page, not Cloudflare's JSON"
          : ", not Cloudflare's JSON: is the base URL right?";
      message = `Cloudflare ${what} failed: HTTP ${answer.status}${said ? ` (${said})` : answer.envelope ? "" : notJson}`;
    }
    return new CloudflareApiError(redact(message, secrets), codes, httpStatus);
  }

  return { baseUrl, send, call, failure };
}

/**
 * The base URL without its trailing slashes, or an error at once: fetch refuses a URL it cannot
 * parse, of another scheme or with credentials before sending anything, which would otherwise look
 * like a lost answer and be retried (and a create looked up) for the whole budget.
 */
function checkedBaseUrl(baseUrl: string, apiToken: string): string {
  const checked = checkBaseUrl(baseUrl);
  if (!checked.ok) throw new Error(baseUrlRefusal(baseUrl, checked, cloudflareBaseUrlRefusal([apiToken])));
  return baseUrl.replace(/\/+$/, "");
}

/** How Cloudflare's base URL is refused: `source` names where it came from, when known. */
export function cloudflareBaseUrlRefusal(
  secrets: readonly (string | undefined)[],
  source?: string,
): BaseUrlRefusal {
  return {
    what: "The Cloudflare API base URL",
    source,
    fix: "unset it to use Cloudflare's own API, or set it to a URL such as https://api.cloudflare.com/client/v4",
    credential: "the API token",
    secrets,
  };
}

/** Why no answer came, in a word: a timeout, or the socket's error code. */
function lostReason(error: unknown): string {
  const { name, cause } = (error ?? {}) as { name?: string; cause?: { code?: string; name?: string } };
  if (name === "TimeoutError" || cause?.name === "TimeoutError") return "timeout";
  return cause?.code ?? (error as { code?: string }).code ?? "ERR_NETWORK";
}
