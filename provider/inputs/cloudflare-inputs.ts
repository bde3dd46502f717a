/**
 * Checks of the Cloudflare settings a program gives (a zone's id, a record's TTL): Cloudflare's own
 * limits, so a mistake fails `pulumi preview` instead of coming back from Cloudflare at `up`.
 */

/** Cloudflare accepts 1 (automatic) or 60 to 86400 seconds. */
export function ttlProblem(ttl: number): string | undefined {
  if (ttl === 1 || (Number.isInteger(ttl) && ttl >= 60 && ttl <= 86400)) return undefined;
  return `must be 1 (automatic) or a whole number of seconds from 60 to 86400, not ${ttl}`;
}

/**
 * Cloudflare's zone ids are 32 hex digits. A placeholder left in a stack file ("replace-me…") or a
 * zone's name given instead of its id fails here, at preview, rather than as a 404 from Cloudflare.
 */
export function zoneIdProblem(zoneId: string): string | undefined {
  if (/^[0-9a-f]{32}$/.test(zoneId)) return undefined;
  return (
    `must be the zone's id, 32 hex digits (Cloudflare dashboard → the zone → Overview → Zone ID), ` +
    `not ${JSON.stringify(zoneId.slice(0, 64))}`
  );
}
