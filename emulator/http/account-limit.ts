import type { Admission, RequestLimit } from "./rate-limit";

/**
 * Cloudflare's API limit as Cloudflare applies it: `requests` per `windowSeconds` per user,
 * account-wide (every token, tool and stack of the user counts, so the stand-in counts every
 * request it receives), 1,200 per 5 minutes by default. Over it, "all API calls for the next five
 * minutes will be blocked, receiving a HTTP 429" (developers.cloudflare.com, fundamentals/api/
 * reference/limits): the block lasts to the window's end, and what is refused meanwhile is not
 * done. Modelled as a fixed window that opens at the first request after the last one closed.
 *
 * Every answer carries Cloudflare's headers: `Ratelimit: "default";r=<left>;t=<seconds to reset>`
 * and `Ratelimit-Policy: "default";q=<requests>;w=<windowSeconds>`; a refusal adds `Retry-After`,
 * the seconds to the window's end, rounded up (so often over a minute, which the Cloudflare
 * provider's client ignores: it backs off on its own instead). The refusal's body is Cloudflare's
 * 971, "Please wait and consider throttling your request speed" (the service's fault answer).
 */
export interface AccountLimit {
  /** Requests admitted per window. @default 1200 */
  requests: number;
  /** The window, in seconds. @default 300 */
  windowSeconds: number;
}

/** Cloudflare's own figures. */
export const CLOUDFLARE_ACCOUNT_LIMIT: AccountLimit = { requests: 1200, windowSeconds: 300 };

/** The limit of the Cloudflare stand-in, changeable while it runs (`PUT /__emulator/cloudflare-limit`). */
export class CloudflareAccountLimit implements RequestLimit {
  private limit: AccountLimit | undefined;
  /** When the open window opened and how many requests it has admitted or refused. */
  private window: { openedAt: number; seen: number } | undefined;

  constructor(
    /** The service it applies to (its request-log name). */
    readonly service: string,
    limit?: AccountLimit,
    /** Milliseconds, from any monotonic clock. */
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.set(limit);
  }

  /** Sets the limit with a window not yet open; `undefined` turns limiting off. */
  set(limit: AccountLimit | undefined): void {
    if (limit) validateAccountLimit(limit);
    // Only its two settings: what else a body held is not echoed back as if it were one.
    this.limit = limit && { requests: limit.requests, windowSeconds: limit.windowSeconds };
    this.window = undefined;
  }

  /** The limit in force; `undefined` when off. */
  get(): AccountLimit | undefined {
    return this.limit && { ...this.limit };
  }

  /** Counts a request to `service`; other services, and every request when off, are admitted bare. */
  admit(service: string): Admission {
    const limit = this.limit;
    if (service !== this.service || !limit) return { allowed: true };
    const now = this.clock();
    const windowMs = limit.windowSeconds * 1000;
    if (!this.window || now - this.window.openedAt >= windowMs) this.window = { openedAt: now, seen: 0 };
    this.window.seen += 1;
    const reset = Math.max(1, Math.ceil((this.window.openedAt + windowMs - now) / 1000));
    const left = Math.max(0, limit.requests - this.window.seen);
    const headers = {
      Ratelimit: `"default";r=${left};t=${reset}`,
      "Ratelimit-Policy": `"default";q=${limit.requests};w=${limit.windowSeconds}`,
    };
    return this.window.seen <= limit.requests
      ? { allowed: true, headers }
      : { allowed: false, retryAfterSeconds: reset, headers };
  }
}

/** Bounds that keep every header a whole number: a billion requests, a day's window. */
const MAX_REQUESTS = 1_000_000_000;
const MAX_WINDOW_SECONDS = 86_400;

export function validateAccountLimit(limit: AccountLimit): void {
  if (typeof limit !== "object" || limit === null || Array.isArray(limit))
    throw new Error("Cloudflare limit: expected an object with `requests` and `windowSeconds`");
  const { requests, windowSeconds } = limit as Partial<AccountLimit>;
  if (
    typeof requests !== "number" ||
    !Number.isInteger(requests) ||
    requests < 1 ||
    requests > MAX_REQUESTS
  ) {
    throw new Error(`Cloudflare limit: \`requests\` must be a whole number from 1 to ${MAX_REQUESTS}`);
  }
  if (
    typeof windowSeconds !== "number" ||
    !Number.isInteger(windowSeconds) ||
    windowSeconds < 1 ||
    windowSeconds > MAX_WINDOW_SECONDS
  ) {
    throw new Error(
      `Cloudflare limit: \`windowSeconds\` must be a whole number from 1 to ${MAX_WINDOW_SECONDS} (a day)`,
    );
  }
}

/** Parses the command-line form `REQUESTS/SECONDS` (e.g. `1200/300`). */
export function parseAccountLimit(text: string): AccountLimit {
  const match = /^\s*([0-9]+)\s*\/\s*([0-9]+)\s*$/.exec(text);
  if (!match) throw new Error(`--cloudflare-limit ${text}: expected REQUESTS/SECONDS, e.g. 1200/300`);
  const limit = { requests: Number(match[1]), windowSeconds: Number(match[2]) };
  try {
    validateAccountLimit(limit);
  } catch (error) {
    throw new Error(`--cloudflare-limit ${text}: ${(error as Error).message}`, { cause: error });
  }
  return limit;
}
