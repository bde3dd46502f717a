import { createHash } from "node:crypto";
import type { Got } from "got";
import { EmailApiError } from "./errors";
import { BaseUrlRefusal, baseUrlRefusal, checkBaseUrl } from "./base-url";
import { Interpretation, interpretAnswer } from "./interpret";
import { outcomeOf, RequestOutcome } from "./adaptive-rate-limiter";
import { keyProblem } from "./key-check";
import { loadGot } from "./load-got";
import { processRuntime, rateLimiterFor } from "./process-runtime";
import { redact } from "./redact";
import type { ClientSettings } from "./settings";

/** Which key a request is sent with. */
export type Auth = "server" | "master";

/** One request as the transport sends it: `POST /api/v1/<operation>` with a JSON body. */
export interface OutgoingRequest {
  operation: string;
  body: Record<string, unknown>;
  /** @default "server" */
  auth?: Auth;
}

/** What one request came to (never a throw), and how long it waited for this process's turn. */
export type SendResult = Interpretation & { queuedMs: number };

/** A request this process held back past `permitWaitMs`: never sent. */
const HELD_BACK = "HELD_BACK";

/** Errors that prove the request never reached the service. */
const NOT_SENT_CODES = ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", HELD_BACK];

/** True when the error proves the request never reached the service (refused, unresolved, held back). */
export function neverSent(error: EmailApiError): boolean {
  return error.code !== undefined && NOT_SENT_CODES.includes(error.code);
}

/**
 * Sends one request at a time: HTTP through a got instance on the process's keep-alive pools,
 * once the process-wide rate limiter of the service and key lets it go. Holds the keys: which one
 * is in use, and every one of them for scrubbing texts.
 */
export class Transport {
  readonly baseUrl: string;
  private readonly http: Got;
  /** The server API key in use: `apiKey`, until the service refuses it and a fallback exists. */
  private apiKey: string | undefined;

  constructor(private readonly settings: ClientSettings) {
    this.baseUrl = normalizeBaseUrl(settings.baseUrl, this.secrets());
    for (const [what, key] of [
      ["API key", settings.apiKey],
      ["fallback API key", settings.fallbackApiKey],
      ["master key", settings.masterKey],
    ] as const) {
      const problem = key === undefined ? undefined : keyProblem(key);
      if (problem) throw new Error(`The email delivery ${what} ${problem}. Nothing was sent.`);
    }
    this.apiKey = settings.apiKey;
    const runtime = processRuntime();
    this.http = loadGot().extend({
      prefixUrl: this.baseUrl,
      agent: { http: runtime.httpAgent, https: runtime.httpsAgent },
      retry: { limit: 0 }, // retries are ours: they must know about lost answers and lookups
      throwHttpErrors: false,
      followRedirect: false,
      responseType: "text",
      headers: { "user-agent": "pulumi-email-delivery", accept: "application/json" },
    });
  }

  /** Where shared lists of `kind` are kept: shared only by clients that get the same answer (URL, key). */
  listKey(kind: string): string {
    return `${this.baseUrl}#${fingerprint(this.apiKey)}#${kind}`;
  }

  /** Switches to the fallback key once, when it differs from the refused one. */
  useFallbackKey(): boolean {
    const fallback = this.settings.fallbackApiKey;
    if (!fallback || fallback === this.apiKey) return false;
    this.apiKey = fallback;
    return true;
  }

  /** One HTTP request, once the rate limiter lets it go (`queuedMs`: how long that took); never throws. */
  async send(request: OutgoingRequest, attempt: number, timeoutMs: number): Promise<SendResult> {
    const { operation } = request;
    const auth = request.auth ?? "server";
    const key = auth === "master" ? this.settings.masterKey : this.apiKey;
    if (!key) {
      const who = auth === "master" ? "master key" : "API key";
      const error = new EmailApiError({
        operation,
        kind: "auth",
        serviceMessage: `no ${who} is configured for this client`,
      });
      return this.attempted(operation, attempt, { ok: false, error }, 0);
    }
    const queuedFrom = Date.now();
    // Whose rate limit a request counts against: the service, as reached with the key it is sent with.
    const limiter = rateLimiterFor(`${this.baseUrl}#${fingerprint(key)}`);
    const waitMs = this.settings.permitWaitMs;
    const permit = await (waitMs === undefined ? limiter.acquire() : limiter.acquireWithin(waitMs));
    const queuedMs = Date.now() - queuedFrom;
    if (!permit) {
      const error = new EmailApiError({
        operation,
        kind: "transient",
        code: HELD_BACK,
        serviceMessage: `not sent: held back ${queuedMs} ms by this process's own limit on requests to ${this.baseUrl}`,
      });
      return { ok: false, error, queuedMs };
    }
    const secrets = this.secrets();
    let result: Interpretation;
    let outcome: RequestOutcome = "other";
    try {
      const response = await this.http.post(`api/v1/${operation}`, {
        json: request.body,
        headers: auth === "master" ? { "x-master-key": key } : { "x-server-api-key": key },
        timeout: { request: timeoutMs },
      });
      const retryAfter = response.headers["retry-after"];
      result = interpretAnswer(
        { operation, httpStatus: response.statusCode, body: response.body, retryAfter },
        secrets,
      );
      outcome = outcomeOf(response.statusCode, result.ok ? undefined : result.error.retryAfterMs);
    } catch (error) {
      result = { ok: false, error: networkError(operation, this.baseUrl, timeoutMs, error, secrets) };
    } finally {
      permit.release(outcome);
    }
    return this.attempted(operation, attempt, result, queuedMs);
  }

  /** Every key this client holds, for scrubbing texts. */
  private secrets(): (string | undefined)[] {
    return [this.settings.apiKey, this.settings.fallbackApiKey, this.settings.masterKey];
  }

  /** Reports a request that was sent (or found unsendable) to `onAttempt`. */
  private attempted(
    operation: string,
    attempt: number,
    result: Interpretation,
    queuedMs: number,
  ): SendResult {
    this.settings.onAttempt?.({
      operation,
      attempt,
      outcome: result.ok ? "ok" : result.error.kind,
      httpStatus: result.ok ? undefined : result.error.httpStatus,
      code: result.ok ? undefined : result.error.code,
    });
    return { ...result, queuedMs };
  }
}

function networkError(
  operation: string,
  baseUrl: string,
  timeoutMs: number,
  error: unknown,
  secrets: readonly (string | undefined)[],
): EmailApiError {
  const code = (error as { code?: string }).code ?? "ERR_NETWORK";
  const name = (error as { name?: string }).name;
  let serviceMessage: string;
  if (name === "TimeoutError") serviceMessage = `no answer from ${baseUrl} within ${timeoutMs} ms`;
  else if (NOT_SENT_CODES.includes(code)) serviceMessage = `could not connect to ${baseUrl} (${code})`;
  else serviceMessage = `the connection to ${baseUrl} failed before an answer arrived (${code})`;
  // Only the code and our own words: got's error carries the request options, headers included.
  // The base URL is ours too, but a key pasted into it (in any letter case) must not show.
  return new EmailApiError({
    operation,
    kind: "transient",
    code,
    serviceMessage: redact(serviceMessage, secrets),
  });
}

function normalizeBaseUrl(baseUrl: string, secrets: readonly (string | undefined)[]): string {
  const checked = checkBaseUrl(baseUrl);
  if (!checked.ok) throw new Error(baseUrlRefusal(baseUrl, checked, emailBaseUrlRefusal(secrets)));
  const { url } = checked;
  url.search = "";
  url.hash = "";
  return url.toString().replace(/\/?$/, "/");
}

/** How the email service's base URL is refused: `source` names where it came from, when known. */
export function emailBaseUrlRefusal(
  secrets: readonly (string | undefined)[],
  source?: string,
): BaseUrlRefusal {
  return {
    what: "The email delivery base URL",
    source,
    fix: "set it to the service's address, e.g. https://postal.example.com",
    credential: "the API key",
    secrets,
  };
}

/** Identifies a key without holding it: list sharing is per key, and keys must not sit in memory maps. */
function fingerprint(key: string | undefined): string {
  return key ? createHash("sha256").update(key).digest("hex").slice(0, 16) : "none";
}
