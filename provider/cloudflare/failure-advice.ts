import type { Answer } from "./api-request";
import { CLOUDFLARE_SETTINGS } from "./settings";

/**
 * What to do when Cloudflare refuses a call for a reason in the user's settings: a zone id the
 * token cannot reach (a typo, a zone of another account, a token limited to other zones), or the
 * token itself. Cloudflare says both in codes (1001 "Invalid zone identifier", 7003 "Could not route
 * to /zones/…"; 10000 "Authentication error", 9109 "Invalid access token"), which name no setting.
 */

/** The token the package's own writes use, as messages name it. */
const TOKEN = `the API token (stack config \`${CLOUDFLARE_SETTINGS.apiToken.config}\`, else ${CLOUDFLARE_SETTINGS.apiToken.env})`;

/**
 * What to check when a zone id is not one the token can reach: for every message that says so, the
 * program's reads of the zone as well as the package's own calls.
 */
export const ZONE_ID_CHECK =
  "check the zone's id in the Cloudflare dashboard (the zone → Overview → Zone ID), " +
  "and that the API token lists that zone under Zone Resources";

/**
 * Whether an error's text (a read of the zone by the Cloudflare provider, or the test kit's model of
 * it) says the zone id is not one the token can reach: Cloudflare's 1001 or 7003, recognised by
 * their words (a bare number could be anything in a message).
 */
export function saysZoneUnreachable(text: string): boolean {
  return /Invalid zone identifier|Could not route to \/zones\//.test(text);
}

/** Cloudflare's codes for a zone id it cannot route to: none of the token's zones. */
const ZONE_UNREACHABLE = [1001, 7003];
/** Cloudflare's codes for a token it refuses. */
const TOKEN_REFUSED = [10000, 9109];

/**
 * The first line for a failed call on zone `zoneId`, naming the setting and what to do, when
 * Cloudflare's answer says the zone or the token is wrong; else undefined. Text only, so that a
 * program's zone checks can use these words without loading the package's Cloudflare client.
 */
export function failureHeadline(answer: Answer, zoneId: string): string | undefined {
  if (answer.kind !== "answered") return undefined;
  const codes = (answer.envelope?.errors ?? []).map((entry) => Number(entry.code));
  const said = (answer.envelope?.errors ?? [])
    .map((entry) => `${entry.code} ${entry.message ?? ""}`.trim())
    .join("; ");
  const why = said ? `HTTP ${answer.status}, ${said}` : `HTTP ${answer.status}`;
  if (codes.some((code) => ZONE_UNREACHABLE.includes(code)))
    return `Cloudflare zone ${zoneId} (cloudflare.zoneId) is not one the API token can reach (${why}): ${ZONE_ID_CHECK}.`;
  if (codes.some((code) => TOKEN_REFUSED.includes(code)))
    return (
      `Cloudflare refused ${TOKEN} for zone ${zoneId} (${why}): check that the token is valid and has ` +
      "the permission Zone → DNS → Edit on that zone."
    );
  return undefined;
}
