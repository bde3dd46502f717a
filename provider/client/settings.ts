import type { EmailApiError } from "./errors";
import type { RetryPolicy } from "./retry";

/** What {@link createClient} takes: where the service is, its keys, timeouts and retries. */
export interface ClientSettings {
  /** The service's base URL; operation paths (`/api/v1/...`) are appended to it. */
  baseUrl: string;
  /** Server API key, sent as `X-Server-API-Key`. Needed by every operation but createServer. */
  apiKey?: string;
  /**
   * A second server API key of the same server, tried when the service says `apiKey` is not valid
   * (a key rotated since the stack config that `refresh` and `destroy` use was saved). Used from
   * then on by this client.
   */
  fallbackApiKey?: string;
  /**
   * Longest a request waits for its turn under this process's own limits (the in-flight cap, the
   * pace learned from 429s) before it fails as transient, unsent: for callers with a deadline of
   * their own. @default no limit: a burst against a slow service waits its turn
   */
  permitWaitMs?: number;
  /**
   * Appended to the service's words in an auth failure: where the key came from, what to do.
   * `explainFailure` can say it first instead.
   */
  authFailureHint?: string;
  /**
   * What a failure means in the caller's terms, for the message's first line: called with each
   * error an operation fails with; undefined leaves the message as it is. The providers name the
   * setting a refused key or a wrong base URL came from, and what to do about it.
   */
  explainFailure?: (error: EmailApiError) => FailureExplanation | undefined;
  /** Master key, sent as `X-Master-Key`. Needed by createServer only. */
  masterKey?: string;
  /** Time one request may take before it is abandoned. @default 30000 */
  requestTimeoutMs?: number;
  /** Time one `domains/check` request may take: the service does four DNS lookups. @default 60000 */
  checkTimeoutMs?: number;
  /** How hard to retry transient failures; unset fields keep their defaults. @default {@link defaultRetryPolicy} */
  retry?: Partial<RetryPolicy>;
  /** Called after every request sent, retries included (for counting in tests and benchmarks). */
  onAttempt?: (attempt: AttemptRecord) => void;
  /** Source of jitter. @default Math.random */
  random?: () => number;
}

/** What {@link ClientSettings.explainFailure} says about a failure. */
export interface FailureExplanation {
  /** The message's first line: the setting, what is wrong with it, what to do. */
  headline: string;
  /** Lines after the operation's own: advice that fits only some cases, worded as such. */
  advice?: string;
}

/** How fresh a list must be: lists are shared between callers and reused briefly. */
export interface ListOptions {
  /** Reuse an answer at most this old (ms) instead of asking again. @default 0: only in-flight ones */
  maxAgeMs?: number;
  /**
   * Only an answer to a request sent after this call (shared with callers arriving meanwhile):
   * to confirm that an object is gone before saying so. Overrides `maxAgeMs`.
   * @default false
   */
  fresh?: boolean;
}

/** One request the client sent, as `onAttempt` receives it. */
export interface AttemptRecord {
  /** The API operation, e.g. `domains/create`. */
  operation: string;
  /** Which attempt of the operation it was (1 for the first). */
  attempt: number;
  /** "ok", or the error kind. */
  outcome: "ok" | EmailApiError["kind"];
  /** The HTTP status of the answer; unset when none arrived. */
  httpStatus?: number;
  /** The service's error code, or a network error code. */
  code?: string;
}
