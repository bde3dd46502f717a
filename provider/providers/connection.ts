import type * as pulumi from "@pulumi/pulumi";
import { ClientSettings, createClient, EmailDeliveryClient } from "../client";

/** Where each connection setting comes from: stack config first, then the environment. */
export const CONNECTION_SETTINGS = {
  baseUrl: { config: "emailDelivery:baseUrl", env: "EMAIL_DELIVERY_BASE_URL", what: "base URL" },
  apiKey: { config: "emailDelivery:apiKey", env: "EMAIL_DELIVERY_API_KEY", what: "API key" },
  masterKey: { config: "emailDelivery:masterKey", env: "EMAIL_DELIVERY_MASTER_KEY", what: "master key" },
} as const;

type Setting = keyof typeof CONNECTION_SETTINGS;
type ConfiguredValues = Partial<Record<Setting, string>>;

/**
 * Stack config read by `configure()`, kept on `globalThis` (not on the provider object, which
 * Pulumi may serialize again, and not in module state, which each serialized provider copies).
 * Keys live here in memory only: never in inputs, outputs, the serialized provider or errors.
 */
function configured(): ConfiguredValues {
  const slot = "__pulumiEmailDeliveryConfig_v1";
  const holder = globalThis as unknown as Record<string, ConfiguredValues | undefined>;
  return (holder[slot] ??= {});
}

/** `configure()` of every provider: remember the stack's connection settings. */
export function rememberConfig(request: pulumi.dynamic.ConfigureRequest): void {
  const values = configured();
  for (const [setting, source] of Object.entries(CONNECTION_SETTINGS) as [Setting, { config: string }][]) {
    let value: string | undefined;
    try {
      value = request.config.get(source.config);
    } catch {
      value = undefined; // a host that never received Configure has no config to read
    }
    if (value) values[setting] = value;
  }
}

/** Forgets configured values (tests). */
export function forgetConfig(): void {
  const values = configured();
  for (const key of Object.keys(values)) delete values[key as Setting];
}

/**
 * A setting from stack config, else from the environment (read now, so rotated keys work even for
 * a `destroy` with old state). Throws naming both places when neither has it.
 */
export function connectionSetting(setting: Setting): string {
  const value = configured()[setting] ?? process.env[CONNECTION_SETTINGS[setting].env];
  if (value) return value;
  const { config, env, what } = CONNECTION_SETTINGS[setting];
  const secret = setting === "baseUrl" ? "" : " --secret";
  throw new Error(
    `The email delivery ${what} is not configured: run \`pulumi config set${secret} ${config} …\` ` +
      `for this stack, or set the ${env} environment variable.`,
  );
}

/**
 * Client settings every provider call in this process starts from, e.g. shorter retries in tests.
 * Process-wide for the same reason as the config.
 */
export function setClientDefaults(settings: Partial<ClientSettings>): void {
  const holder = globalThis as unknown as Record<string, Partial<ClientSettings> | undefined>;
  holder.__pulumiEmailDeliveryClientDefaults_v1 = settings;
}

/** A client for the configured service, built per call (nothing of it is captured). */
export function serviceClient(overrides: Partial<ClientSettings> = {}): EmailDeliveryClient {
  const holder = globalThis as unknown as Record<string, Partial<ClientSettings> | undefined>;
  const defaults = holder.__pulumiEmailDeliveryClientDefaults_v1 ?? {};
  return createClient({
    ...defaults,
    baseUrl: connectionSetting("baseUrl"),
    apiKey: connectionSetting("apiKey"),
    ...overrides,
    retry: { ...defaults.retry, ...overrides.retry },
  });
}
