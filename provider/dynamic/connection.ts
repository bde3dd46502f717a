import { ClientSettings, createClient, EmailDeliveryClient } from "../client";
import { keyProblem } from "../client/key-check";
import { redact } from "../client/redact";
import { processState } from "../process-state";
import { checkBaseUrlSetting, connectionFacts, explainFailure, sourceOf } from "./connection-messages";
import { CONNECTION_SETTINGS, ROTATED_API_KEY_ENV } from "./connection-settings";
import { configured, Setting } from "./configured";

/**
 * The connection to the email service: each setting from stack config or the environment, the
 * rotated key, the program's own client (`getDomain`) and the providers' shared one.
 * `configure()`'s memory is `configured.ts`; the DNS and Cloudflare settings have modules of
 * their own, so that a program's zone survey loads neither this nor the client.
 */

/**
 * A setting from stack config, else from the environment. Throws naming both places when neither
 * has it, and naming the place (never the value) when a key cannot be sent in a header.
 */
export function connectionSetting(setting: Setting): string {
  return settingOrEnvironment(setting, configured()[setting]);
}

/**
 * A setting from `fromConfig` (the stack config as the caller reads it: `configure()` in the
 * providers, the program's config in a lookup), else from the environment, with the same checks
 * and messages as `connectionSetting`. An empty config value counts as unset.
 */
export function settingOrEnvironment(setting: Setting, fromConfig: string | undefined): string {
  const { config, env, what } = CONNECTION_SETTINGS[setting];
  const value = fromConfig || process.env[env];
  if (value) {
    if (setting !== "baseUrl") checkKey(value, what, sourceOf(CONNECTION_SETTINGS[setting], !!fromConfig));
    return value;
  }
  const secret = setting === "baseUrl" ? "" : " --secret";
  throw new Error(
    `The email delivery ${what} is not configured: run \`pulumi config set${secret} ${config} …\` ` +
      `for this stack, or set the ${env} environment variable.`,
  );
}

/**
 * The new key after a rotation, tried when the service refuses the configured one. `pulumi refresh`
 * and `pulumi destroy` configure the provider from the stack config saved at the last `pulumi up`,
 * so after `pulumi config set` rotates the key they still send the old one. A variable of its own,
 * never EMAIL_DELIVERY_API_KEY: that one often holds another server's key (a development server),
 * and a refresh with it would find none of this stack's objects and drop them from state.
 */
function rotatedApiKey(apiKey: string): string | undefined {
  const rotated = process.env[ROTATED_API_KEY_ENV];
  if (!rotated || rotated === apiKey) return undefined;
  checkKey(rotated, CONNECTION_SETTINGS.apiKey.what, `the ${ROTATED_API_KEY_ENV} environment variable`);
  return rotated;
}

/** Fails at once, naming where the key came from (never the key), when a header cannot carry it. */
function checkKey(key: string, what: string, source: string): void {
  const problem = keyProblem(key);
  if (problem) throw new Error(`The email delivery ${what} from ${source} ${problem}. Nothing was sent.`);
}

/** A client for a program's own calls, and where it points (for messages; never the key). */
export interface ProgramClient {
  client: EmailDeliveryClient;
  /** The base URL as configured, scrubbed of the key (a key pasted into the wrong setting). */
  baseUrl: string;
}

/**
 * A client for code that runs in the program rather than the provider host (the `getDomain`
 * lookup), where no `configure()` has run: `readConfig` reads the program's stack config, and the
 * environment is the fallback, with the same checks and messages as the providers. No rotated key:
 * a program always runs with the stack config as it is now. Built per call, never kept: lists and
 * rate limits are shared process-wide anyway.
 */
export function programClient(readConfig: (key: string) => string | undefined): ProgramClient {
  const defaults = processState().clientDefaults ?? {};
  const fromConfig = {
    baseUrl: readConfig(CONNECTION_SETTINGS.baseUrl.config),
    apiKey: readConfig(CONNECTION_SETTINGS.apiKey.config),
  };
  const baseUrl = settingOrEnvironment("baseUrl", fromConfig.baseUrl);
  const apiKey = settingOrEnvironment("apiKey", fromConfig.apiKey);
  const sources = { baseUrlFromConfig: !!fromConfig.baseUrl, keyFromConfig: !!fromConfig.apiKey };
  checkBaseUrlSetting("email", baseUrl, sourceOf(CONNECTION_SETTINGS.baseUrl, sources.baseUrlFromConfig), [
    apiKey,
  ]);
  const client = createClient({
    ...defaults,
    baseUrl,
    apiKey,
    explainFailure: explainFailure(connectionFacts({ baseUrl, apiKey }, sources, false)),
  });
  return { client, baseUrl: redact(baseUrl, [apiKey]) };
}

/**
 * How old a list may be for a refresh's `read`. The provider host lives for one Pulumi command, so
 * this only lets the reads of one refresh share one list per kind: the engine sends them
 * concurrently (up to 4 × CPUs at once, so in waves), and a wave that starts after the first list
 * came back reuses it instead of asking again. Writes through the host are applied to it (one
 * whose outcome is unknown makes it forgotten), so it never misses this host's own changes.
 */
export const READ_LIST_MAX_AGE_MS = 60_000;

/**
 * Client settings every provider call in this process starts from, e.g. shorter retries in tests.
 * Process-wide for the same reason as the config.
 */
export function setClientDefaults(settings: Partial<ClientSettings>): void {
  processState().clientDefaults = settings;
}

/** One client shared by calls without overrides, with what it was built from. */
interface SharedClient {
  baseUrl: string;
  apiKey: string;
  rotatedApiKey: string | undefined;
  /** Where the base URL and the key came from: what its failures name. */
  sources: string;
  defaults: Partial<ClientSettings>;
  client: EmailDeliveryClient;
}

/**
 * The client of calls without overrides, while the settings stay the same: building one costs
 * about as much as a request to a nearby service. Module state, not process-wide: what a client
 * shares with others (connections, lists, rate limits) is in the process runtime already, so a
 * copy of these modules that builds a client of its own costs one build.
 */
let sharedClient: SharedClient | undefined;

/** A client for the configured service, built when a method runs (after `configure()`). */
export function serviceClient(overrides: Partial<ClientSettings> = {}): EmailDeliveryClient {
  const defaults = processState().clientDefaults ?? {};
  const baseUrl = connectionSetting("baseUrl");
  const apiKey = connectionSetting("apiKey");
  const plain = Object.keys(overrides).length === 0;
  const sources = { baseUrlFromConfig: !!configured().baseUrl, keyFromConfig: !!configured().apiKey };
  const cached = sharedClient;
  if (
    plain &&
    cached?.baseUrl === baseUrl &&
    cached.apiKey === apiKey &&
    cached.rotatedApiKey === process.env[ROTATED_API_KEY_ENV] &&
    cached.sources === JSON.stringify(sources) &&
    cached.defaults === defaults
  ) {
    return cached.client;
  }
  const fallbackApiKey = rotatedApiKey(apiKey);
  const baseUrlSource = sourceOf(CONNECTION_SETTINGS.baseUrl, sources.baseUrlFromConfig);
  checkBaseUrlSetting("email", baseUrl, baseUrlSource, [apiKey, fallbackApiKey]);
  const client = createClient({
    ...defaults,
    baseUrl,
    apiKey,
    fallbackApiKey,
    explainFailure: explainFailure(connectionFacts({ baseUrl, apiKey, fallbackApiKey }, sources, true)),
    ...overrides,
    retry: { ...defaults.retry, ...overrides.retry },
  });
  if (plain)
    sharedClient = {
      baseUrl,
      apiKey,
      rotatedApiKey: process.env[ROTATED_API_KEY_ENV],
      sources: JSON.stringify(sources),
      defaults,
      client,
    } satisfies SharedClient;
  return client;
}
