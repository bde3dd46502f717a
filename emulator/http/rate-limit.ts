/**
 * A server-wide request rate limit, as many hosted APIs have (Postal itself has none): a token
 * bucket holding `burst` tokens, refilled at `requestsPerSecond`. A request takes one token; with
 * none left it is answered 429 before it is handled (nothing is done), with `Retry-After` in whole
 * seconds, rounded up, as most services send it: `1` even when the next token is 50 ms away.
 * Clients must cope with that: waiting exactly `Retry-After` makes every refused request come
 * back at the same instant.
 */

export interface RateLimit {
  /** Tokens added per second. */
  requestsPerSecond: number;
  /** Tokens the bucket holds at most (and holds when the limit is set). */
  burst: number;
}

/** What a limit decided for one request. */
export type Admission = (
  | {
      /** Admitted: a token was taken. */
      allowed: true;
    }
  | {
      /** Refused: answered 429 before it is handled. */
      allowed: false;
      /** The `Retry-After` sent, whole seconds until a token is back (at least 1). */
      retryAfterSeconds: number;
    }
) & {
  /** Headers the answer carries either way (Cloudflare's `Ratelimit`, …). */
  headers?: Record<string, string>;
};

/** A limit a service applies before it handles a request (each names the service it applies to). */
export interface RequestLimit {
  /** Counts a request to `service` and says whether it is admitted (another service's always is). */
  admit(service: string): Admission;
}

/** What every limit of `limits` decides for a request to `service`: the first refusal, with every header. */
export function admitAll(limits: readonly (RequestLimit | undefined)[], service: string): Admission {
  let headers: Record<string, string> = {};
  for (const limit of limits) {
    const admission = limit?.admit(service);
    if (!admission) continue;
    headers = { ...headers, ...admission.headers };
    if (!admission.allowed) return { ...admission, headers };
  }
  return { allowed: true, headers };
}

/** The token bucket itself; `now` in milliseconds, from any monotonic clock. */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    readonly limit: RateLimit,
    now: number,
  ) {
    this.tokens = limit.burst;
    this.updatedAt = now;
  }

  take(now: number): Admission {
    const elapsed = Math.max(0, now - this.updatedAt) / 1000;
    this.tokens = Math.min(this.limit.burst, this.tokens + elapsed * this.limit.requestsPerSecond);
    this.updatedAt = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { allowed: true };
    }
    const seconds = (1 - this.tokens) / this.limit.requestsPerSecond;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(seconds)) };
  }
}

/**
 * The limit of one emulated service, changeable while it runs (`PUT /__emulator/rate-limit`).
 * Setting a limit starts a full bucket; `undefined` turns limiting off.
 */
export class ServiceRateLimit {
  private bucket: TokenBucket | undefined;

  constructor(
    /** The service it applies to (its request-log name, e.g. `email-api`). */
    readonly service: string,
    limit?: RateLimit,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.set(limit);
  }

  /** Sets the limit, starting a full bucket; `undefined` turns limiting off. */
  set(limit: RateLimit | undefined): void {
    if (limit) validateRateLimit(limit);
    this.bucket = limit && new TokenBucket({ ...limit }, this.clock());
  }

  /** The limit in force; `undefined` when off. */
  get(): RateLimit | undefined {
    return this.bucket && { ...this.bucket.limit };
  }

  /** Takes a token for a request to `service`; other services are not limited. */
  admit(service: string): Admission {
    if (service !== this.service || !this.bucket) return { allowed: true };
    return this.bucket.take(this.clock());
  }
}

export function validateRateLimit(limit: RateLimit): void {
  if (typeof limit !== "object" || limit === null || Array.isArray(limit))
    throw new Error("rate limit: expected an object with `requestsPerSecond` and `burst`");
  const { requestsPerSecond, burst } = limit as Partial<RateLimit>;
  if (typeof requestsPerSecond !== "number" || !(requestsPerSecond > 0 && requestsPerSecond < Infinity)) {
    throw new Error("rate limit: `requestsPerSecond` must be a number above 0");
  }
  if (typeof burst !== "number" || !Number.isInteger(burst) || burst < 1) {
    throw new Error("rate limit: `burst` must be a whole number of at least 1");
  }
}

/** Parses the command-line form `RATE/BURST` (e.g. `20/20`), or `RATE` for a burst of one second's worth. */
export function parseRateLimit(text: string): RateLimit {
  const match = /^\s*([0-9.]+)\s*(?:\/\s*([0-9]+)\s*)?$/.exec(text);
  if (!match) throw new Error(`--rate-limit ${text}: expected REQUESTS_PER_SECOND[/BURST], e.g. 20/20`);
  const requestsPerSecond = Number(match[1]);
  const limit = {
    requestsPerSecond,
    burst: match[2] ? Number(match[2]) : Math.max(1, Math.ceil(requestsPerSecond)),
  };
  try {
    validateRateLimit(limit);
  } catch (error) {
    throw new Error(`--rate-limit ${text}: ${(error as Error).message}`, { cause: error });
  }
  return limit;
}

/** A limit the admin endpoints read and set: the service it applies to, and its setting. */
export interface AdjustableLimit<L> {
  readonly service: string;
  set(limit: L | undefined): void;
  get(): L | undefined;
}

/**
 * `/__emulator/<path>` of a limit (`rate-limit`: the email API's, `cloudflare-limit`: Cloudflare's
 * account-wide one): GET answers `{service, limit}` (null when off); PUT with `{"limit": {...}}`
 * sets it (a full bucket, a window not yet open), with `{"limit": null}` or DELETE turns it off.
 * Throws on a bad limit (the caller answers 400).
 */
export function answerLimitAdmin<L>(
  limit: AdjustableLimit<L>,
  path: string,
  method: string,
  body: string | undefined,
): { status: number; value: unknown } {
  if (method === "PUT" || method === "POST") {
    // A cut-off body must not pass for an empty one.
    if (body === undefined)
      return { status: 413, value: { error: "the body is over the size limit; nothing changed" } };
    const parsed = JSON.parse(body || "{}") as { limit?: unknown };
    const given = parsed?.limit;
    // Only an object sets a limit, only null turns it off: `0` or `false` is no way to say either.
    if (
      typeof parsed !== "object" ||
      parsed === null ||
      !("limit" in parsed) ||
      (given !== null && typeof given !== "object")
    )
      throw new Error(`${path}: expected {"limit": {...}} or {"limit": null}`);
    limit.set((given ?? undefined) as L | undefined);
  } else if (method === "DELETE") {
    limit.set(undefined);
  } else if (method !== "GET") {
    return { status: 405, value: { error: `${method} /__emulator/${path} is not supported` } };
  }
  return { status: 200, value: { service: limit.service, limit: limit.get() ?? null } };
}
