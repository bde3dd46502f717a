/**
 * The connection settings and where each comes from: stack config first, then the environment.
 * Data only. `configured.ts` remembers what `configure()` received; `connection.ts`,
 * `dns-settings.ts` and `cloudflare-setting.ts` read each setting from there or the environment.
 */

/** Where each connection setting comes from: stack config first, then the environment. */
export const CONNECTION_SETTINGS = {
  /** The email service's base URL. */
  baseUrl: {
    /** The stack config key, read first. */
    config: "emailDelivery:baseUrl",
    /** The environment variable, read when the config key is unset. */
    env: "EMAIL_DELIVERY_BASE_URL",
    /** What the setting is, in error messages. */
    what: "base URL",
  },
  /** The server API key. */
  apiKey: {
    /** The stack config key, read first. */
    config: "emailDelivery:apiKey",
    /** The environment variable, read when the config key is unset. */
    env: "EMAIL_DELIVERY_API_KEY",
    /** What the setting is, in error messages. */
    what: "API key",
  },
} as const;

export { CLOUDFLARE_API_URL, CLOUDFLARE_SETTINGS } from "../cloudflare/settings";

/**
 * The DNS server the SPF checks of a merge ask (`ip[:port]`), read the same way in the program
 * (the zone survey) and in the provider host (a claimed record's check before it writes). Unset:
 * this machine's resolver. Set to the emulator's DNS server by the test kit, and by hand for a
 * stack against the standalone emulator, whose zones no other DNS serves.
 */
export const DNS_RESOLVER_SETTING = {
  config: "emailDelivery:dnsResolver",
  env: "EMAIL_DELIVERY_DNS_RESOLVER",
} as const;

/**
 * The DNS servers a verification asks as a domain's authoritative nameservers (`ip[:port]`,
 * comma-separated), instead of the zone's NS found through the resolver. Set to the emulator's
 * nameservers by the test kit, and by hand for a stack against the standalone emulator (its
 * `EMULATOR_NAMESERVERS` line): the zone's real nameservers know nothing of the emulator's records.
 */
export const DNS_NAMESERVERS_SETTING = {
  config: "emailDelivery:dnsNameservers",
  env: "EMAIL_DELIVERY_DNS_NAMESERVERS",
} as const;

/** Where a rotated API key may be given, for the commands that still send the saved one. */
export const ROTATED_API_KEY_ENV = "EMAIL_DELIVERY_ROTATED_API_KEY";
