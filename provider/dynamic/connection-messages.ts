import type { EmailApiError, FailureExplanation } from "../client";
import { baseUrlRefusal, checkBaseUrl } from "../client/base-url";
import { isKeyRefused } from "../client/execute";
import { redact } from "../client/redact";
import { emailBaseUrlRefusal } from "../client/transport";
import { cloudflareBaseUrlRefusal } from "../cloudflare/api-request";
import { CONNECTION_SETTINGS, ROTATED_API_KEY_ENV } from "./connection-settings";

/**
 * What the connection's errors say: each names the setting and where its value came from (never
 * the value of a key), what is wrong, and what to do, in its first line. `connection.ts` reads the
 * settings; the words are here.
 */

/** Where a setting's value came from, as messages name it. */
export function sourceOf(setting: { config: string; env: string }, fromConfig: boolean): string {
  return fromConfig ? `stack config \`${setting.config}\`` : `the ${setting.env} environment variable`;
}

/** Fails at once when `baseUrl` cannot be sent to, naming the setting and what to set instead. */
export function checkBaseUrlSetting(
  service: "email" | "cloudflare",
  baseUrl: string,
  source: string,
  secrets: readonly (string | undefined)[],
): void {
  const checked = checkBaseUrl(baseUrl);
  if (checked.ok) return;
  const refusal =
    service === "email" ? emailBaseUrlRefusal(secrets, source) : cloudflareBaseUrlRefusal(secrets, source);
  throw new Error(baseUrlRefusal(baseUrl, checked, refusal));
}

/** What a client's failures are explained from: where its settings came from. */
export interface ConnectionFacts {
  /** The base URL, cleaned of keys, and where it came from. */
  baseUrl: string;
  baseUrlSource: string;
  /** Whether the base URL ends in `/api/v1`, which every request adds. */
  baseUrlHasApiPath: boolean;
  /** Where the API key came from. */
  keySource: string;
  /** The key came from stack config, which `refresh` and `destroy` take as saved at the last `up`. */
  keyFromConfig: boolean;
  /** A rotated key (EMAIL_DELIVERY_ROTATED_API_KEY) is tried when the service refuses the first. */
  rotated: boolean;
  /** Whether to say how a rotated key is used: the providers, not a program's own lookup. */
  rotationAdvice: boolean;
}

const SERVER_KEY =
  "a server API key of type API, from the mail server this stack manages (Postal: the server → Credentials)";

/** `ClientSettings.explainFailure` for a client built from these settings. */
export function explainFailure(
  facts: ConnectionFacts,
): (error: EmailApiError) => FailureExplanation | undefined {
  return (error) => {
    if (error.kind === "auth") return authFailure(error, facts);
    if (error.notTheService) {
      const fix = facts.baseUrlHasApiPath
        ? "remove /api/v1 from its end: every request adds it"
        : "set it to the service's own address, e.g. https://postal.example.com";
      return {
        headline: `The email delivery base URL ${facts.baseUrl} (${facts.baseUrlSource}) does not lead to the email service's API: ${fix}.`,
      };
    }
    return undefined;
  };
}

function authFailure(error: EmailApiError, facts: ConnectionFacts): FailureExplanation {
  const why = error.code ?? (error.httpStatus === undefined ? "refused" : `HTTP ${error.httpStatus}`);
  const { keySource: source } = facts;
  if (!isKeyRefused(error)) {
    if (error.code === "ServerSuspended")
      return {
        headline: `The email service refuses the API key from ${source} (ServerSuspended): its mail server is suspended: have an administrator of the service unsuspend it.`,
      };
    return {
      headline:
        `The email service refused a request made with the API key from ${source} (${why}): check that it is ` +
        `${SERVER_KEY}, and that ${facts.baseUrl} is the service itself, not a proxy that asks for a login of its own.`,
    };
  }
  if (facts.rotated)
    return {
      headline:
        `The email service refused both API keys, from ${source} and from ${ROTATED_API_KEY_ENV} (${why}): ` +
        `set ${ROTATED_API_KEY_ENV} to ${SERVER_KEY}.`,
    };
  const { config } = CONNECTION_SETTINGS.apiKey;
  const headline = facts.keyFromConfig
    ? `The email service refused the API key from ${source} (${why}): set ${SERVER_KEY}, with \`pulumi config set --secret ${config} …\`.`
    : `The email service refused the API key from ${source} (${why}): set it to ${SERVER_KEY}.`;
  if (!facts.keyFromConfig || !facts.rotationAdvice) return { headline };
  return {
    headline,
    advice:
      "If this key worked before and you rotated it since: `pulumi refresh` and `pulumi destroy` use the stack " +
      "config saved at the last `pulumi up`, so run `pulumi up` first, pass `--run-program`, or set " +
      `${ROTATED_API_KEY_ENV} to the new key for that command.`,
  };
}

/** The facts of a client's settings, for {@link explainFailure}. */
export function connectionFacts(
  settings: { baseUrl: string; apiKey: string; fallbackApiKey?: string },
  sources: { baseUrlFromConfig: boolean; keyFromConfig: boolean },
  rotationAdvice: boolean,
): ConnectionFacts {
  const url = checkBaseUrl(settings.baseUrl);
  return {
    baseUrl: redact(settings.baseUrl, [settings.apiKey, settings.fallbackApiKey]),
    baseUrlSource: sourceOf(CONNECTION_SETTINGS.baseUrl, sources.baseUrlFromConfig),
    baseUrlHasApiPath: url.ok && /\/api\/v1\/?$/.test(url.url.pathname),
    keySource: sourceOf(CONNECTION_SETTINGS.apiKey, sources.keyFromConfig),
    keyFromConfig: sources.keyFromConfig,
    rotated: settings.fallbackApiKey !== undefined,
    rotationAdvice,
  };
}
