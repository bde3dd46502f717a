/**
 * DNS name handling shared by the Cloudflare stand-in and the DNS server. Names are compared and
 * stored lowercase and without the trailing dot, as Cloudflare returns them.
 */

/** Lowercase, without one trailing dot. */
export function normaliseName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/** True when `name` is `zone` itself or a name below it (both already normalised). */
export function isAtOrUnder(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}

/**
 * The FQDN a record's `name` field stands for in `zone`: `@` is the apex, a name ending in the zone
 * is taken as is (with or without trailing dot), a single label is relative to the zone.
 * Anything else (a dotted name outside the zone) gives undefined: see the decisions in service.ts.
 */
export function recordFqdn(input: string, zone: string): string | undefined {
  const trimmed = input.trim();
  if (trimmed === "@") return zone;
  const name = normaliseName(trimmed);
  if (name === "" || !isValidDnsName(name)) return undefined;
  if (isAtOrUnder(name, zone)) return name;
  if (!trimmed.endsWith(".") && !name.includes(".")) return `${name}.${zone}`;
  return undefined;
}

/**
 * A syntactically valid owner name: labels of 1-63 letters, digits, `-`, `_` (service labels such
 * as `_dmarc`), a leading `*` label for wildcards, 253 characters at most.
 */
export function isValidDnsName(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  return name
    .split(".")
    .every((label, index) =>
      label === "*" ? index === 0 : /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i.test(label),
    );
}

/** A hostname target (CNAME, MX, NS content), with or without trailing dot. */
export function isValidHostname(target: string): boolean {
  const name = target.endsWith(".") ? target.slice(0, -1) : target;
  return isValidDnsName(name) && !name.startsWith("*");
}
