import { randomBytes } from "node:crypto";

/** Cloudflare's object ids: 32 lowercase hex characters. */
export const CLOUDFLARE_ID = /^[0-9a-f]{32}$/;

export function newCloudflareId(): string {
  return randomBytes(16).toString("hex");
}

let lastMicros = 0;

/**
 * An RFC 3339 timestamp with microseconds, as Cloudflare writes them (`2023-01-17T20:37:05.368097Z`).
 * Strictly increasing within the process, so two writes in the same millisecond still get
 * different `modified_on` values.
 */
export function cloudflareTimestamp(): string {
  const subMillisecond = Number((process.hrtime.bigint() / 1000n) % 1000n);
  lastMicros = Math.max(Date.now() * 1000 + subMillisecond, lastMicros + 1);
  const millis = Math.floor(lastMicros / 1000);
  const micros = String(lastMicros % 1000).padStart(3, "0");
  return new Date(millis).toISOString().replace(/Z$/, `${micros}Z`);
}
