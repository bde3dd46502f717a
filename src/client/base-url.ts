/**
 * Whether a setting can be an HTTP API's base URL: the one check behind the email service's and
 * Cloudflare's base URLs, each of which words its own error. A URL that fails it is refused before
 * anything is sent: sent, it would fail as a lost answer and be retried for the whole budget.
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
