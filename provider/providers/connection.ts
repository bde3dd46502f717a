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
 * Pulumi may serialize, and not in module state, which each copy of the modules has its own of:
 * a program that wraps these providers in its own `pulumi.dynamic.Resource` serializes them).
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
 * How old a list may be for a refresh's `read`. The provider host lives for one Pulumi command, so
 * this only lets the reads of one refresh (which arrive over seconds, not all at once) share one
 * list per kind; writes through the host invalidate it at once.
 */
export const READ_LIST_MAX_AGE_MS = 60_000;

/**
 * Client settings every provider call in this process starts from, e.g. shorter retries in tests.
 * Process-wide for the same reason as the config.
 */
export function setClientDefaults(settings: Partial<ClientSettings>): void {
  const holder = globalThis as unknown as Record<string, Partial<ClientSettings> | undefined>;
  holder.__pulumiEmailDeliveryClientDefaults_v1 = settings;
}

/** One client shared by calls without overrides, with what it was built from. */
interface SharedClient {
  baseUrl: string;
  apiKey: string;
  defaults: Partial<ClientSettings>;
  client: EmailDeliveryClient;
}

/**
 * A client for the configured service (nothing of it is captured if a provider is serialized). Calls
 * without overrides share one client per process while the settings stay the same: building one
 * costs about as much as a request to a nearby service.
 */
export function serviceClient(overrides: Partial<ClientSettings> = {}): EmailDeliveryClient {
  const holder = globalThis as unknown as Record<string, unknown>;
  const defaults = (holder.__pulumiEmailDeliveryClientDefaults_v1 ?? {}) as Partial<ClientSettings>;
  const baseUrl = connectionSetting("baseUrl");
  const apiKey = connectionSetting("apiKey");
  const plain = Object.keys(overrides).length === 0;
  const cached = holder.__pulumiEmailDeliverySharedClient_v1 as SharedClient | undefined;
  if (plain && cached?.baseUrl === baseUrl && cached.apiKey === apiKey && cached.defaults === defaults) {
    return cached.client;
  }
  const client = createClient({
    ...defaults,
    baseUrl,
    apiKey,
    ...overrides,
    retry: { ...defaults.retry, ...overrides.retry },
  });
  if (plain)
    holder.__pulumiEmailDeliverySharedClient_v1 = {
      baseUrl,
      apiKey,
      defaults,
      client,
    } satisfies SharedClient;
  return client;
}
