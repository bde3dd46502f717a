import { redact } from "./redact";

/**
 * Whether a setting can be an HTTP API's base URL: the one check behind the email service's and
 * Cloudflare's base URLs, and the one wording of its refusal (each names its setting and fix). A
 * URL that fails it is refused before anything is sent: sent, it would fail as a lost answer and be
 * retried for the whole budget.
 */
export type BaseUrlCheck =
  | { ok: true; problem?: undefined; url: URL }
  /** Not a URL at all (no scheme, a typo). */
  | { ok: false; problem: "not-a-url" }
  /** A URL of another scheme than http or https (`protocol` as the URL spells it: `ftp:`). */
  | { ok: false; problem: "scheme"; url: URL }
  /** A URL with a user name or password in it: keys are settings of their own. */
  | { ok: false; problem: "credentials"; url: URL };

/** Checks `baseUrl` as an HTTP API's base URL. */
export function checkBaseUrl(baseUrl: string): BaseUrlCheck {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { ok: false, problem: "not-a-url" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, problem: "scheme", url };
  if (url.username || url.password) return { ok: false, problem: "credentials", url };
  return { ok: true, url };
}

/** How a refused base URL is named in its message, and what to set instead. */
export interface BaseUrlRefusal {
  /** What the setting is, e.g. "The email delivery base URL". */
  what: string;
  /** Where the value came from, e.g. "stack config `emailDelivery:baseUrl`"; undefined when unknown. */
  source?: string;
  /** What to do about a value that is not a URL or of another scheme, e.g. "set it to …". */
  fix: string;
  /** What carries the credentials instead, e.g. "the API key". */
  credential: string;
  /** Keys the value is cleaned of: a key pasted into the wrong setting must not reach a log. */
  secrets: readonly (string | undefined)[];
}

/**
 * The message for a base URL {@link checkBaseUrl} refused: the setting, its value (cleaned of keys;
 * without the user name and password it holds), what is wrong and what to do.
 */
export function baseUrlRefusal(
  baseUrl: string,
  checked: Exclude<BaseUrlCheck, { ok: true }>,
  refusal: BaseUrlRefusal,
): string {
  const shown =
    checked.problem === "credentials"
      ? `${checked.url.protocol}//${checked.url.host}`
      : redact(baseUrl, refusal.secrets);
  const subject = `${refusal.what} "${shown}"${refusal.source ? ` (${refusal.source})` : ""}`;
  const problem =
    checked.problem === "not-a-url"
      ? `is not a URL: ${refusal.fix}`
      : checked.problem === "scheme"
        ? `uses ${checked.url.protocol}, not http or https: ${refusal.fix}`
        : `holds a user name or password: remove them (${refusal.credential} is a setting of its own)`;
  return `${subject} ${problem}. Nothing was sent.`;
}
