import { keyProblem } from "../client/key-check";
import { checkBaseUrlSetting, sourceOf } from "./connection-messages";
import { CLOUDFLARE_API_URL, CLOUDFLARE_SETTINGS } from "./connection-settings";
import { CloudflareSetting, configured } from "./configured";

/**
 * The default Cloudflare provider's setting, from stack config, else the environment; the base
 * URL defaults to Cloudflare's API. Throws naming both places for a missing token, and naming the
 * place (never a token) for a token a header cannot carry or a base URL that cannot be sent to.
 */
export function cloudflareSetting(setting: CloudflareSetting): string {
  const { config, env } = CLOUDFLARE_SETTINGS[setting];
  const fromConfig = configured()[`cloudflare.${setting}`];
  const value = fromConfig ?? process.env[env];
  if (value) {
    const source = sourceOf(CLOUDFLARE_SETTINGS[setting], fromConfig !== undefined);
    if (setting === "baseUrl") {
      const token = configured()["cloudflare.apiToken"] ?? process.env[CLOUDFLARE_SETTINGS.apiToken.env];
      checkBaseUrlSetting("cloudflare", value, source, [token]);
    }
    // Node refuses such a header before sending: it would look like a lost connection, retried for a minute.
    const problem = setting === "apiToken" ? keyProblem(value) : undefined;
    if (problem) throw new Error(`The Cloudflare API token from ${source} ${problem}. Nothing was sent.`);
    return value;
  }
  if (setting === "baseUrl") return CLOUDFLARE_API_URL;
  throw new Error(
    `No Cloudflare API token for the records this package writes itself (adopted, overwritten or merged): ` +
      `set the default Cloudflare provider's token with \`pulumi config set --secret ${config} …\`, or in the ${env} ` +
      "environment variable (an API key with an email is not supported for these records).",
  );
}
