/**
 * The default Cloudflare provider's settings, data only: here so that the Cloudflare client's
 * messages can name them. Reading them (after `configure()`) is `dynamic/cloudflare-setting.ts`,
 * and `dynamic/connection-settings.ts` exports them with the other connection settings.
 */

/**
 * The default Cloudflare provider's settings, read as the connection settings are (stack config
 * first, then the environment), for the records this package writes itself (`ClaimedDnsRecord`:
 * adopted, overwritten or merged records): the configuration users already have for
 * `@pulumi/cloudflare`, no setting of its own.
 */
export const CLOUDFLARE_SETTINGS = {
  /** The Cloudflare API token. */
  apiToken: {
    /** The stack config key, read first. */
    config: "cloudflare:apiToken",
    /** The environment variable, read when the config key is unset. */
    env: "CLOUDFLARE_API_TOKEN",
    /** What the setting is, in error messages. */
    what: "API token",
  },
  /** Cloudflare's API base URL (unset: Cloudflare's own). */
  baseUrl: {
    /** The stack config key, read first. */
    config: "cloudflare:baseUrl",
    /** The environment variable, read when the config key is unset. */
    env: "CLOUDFLARE_BASE_URL",
    /** What the setting is, in error messages. */
    what: "base URL",
  },
} as const;

/** Cloudflare's API, when `cloudflare:baseUrl` and CLOUDFLARE_BASE_URL are unset. */
export const CLOUDFLARE_API_URL = "https://api.cloudflare.com/client/v4";
