import { CloudflareDnsRecord } from "../store/state";
import { cloudflareErrors } from "./errors";
import { isAtOrUnder, normaliseName } from "./names";

/**
 * Shadowed records, as Cloudflare's "Shadowed records" reference describes them (cloudflare-docs
 * `dns/manage-dns-records/reference/shadowed-records.mdx`): an NS record below the apex delegates
 * its name, and every record at or below it is shadowed. The list parameters
 * `include_shadow_metadata`, `shadowed_by_name` and `shadowing_name` and the `meta` fields they
 * bring (`shadowed_by`, `is_glue`, `dead_glue`, `shadowed_records_count`). Pure.
 */

/** Records whose `meta` carry shadow fields are capped at this count, as documented. */
const SHADOWED_COUNT_CAP = 10_000;

const isDelegation = (record: CloudflareDnsRecord, zoneName: string) =>
  record.type === "NS" && record.name !== zoneName;

/** The NS records (delegations) that shadow `record`: at or above its name, below the apex. */
export function shadowingDelegations(
  record: CloudflareDnsRecord,
  zoneRecords: CloudflareDnsRecord[],
  zoneName: string,
): CloudflareDnsRecord[] {
  if (record.name === zoneName) return [];
  return zoneRecords.filter(
    (ns) =>
      isDelegation(ns, zoneName) &&
      isAtOrUnder(record.name, ns.name) &&
      // An NS record at its delegation's name is the delegation, not shadowed by it.
      !(record.type === "NS" && record.name === ns.name),
  );
}

/** The shadow fields of `record`'s `meta` (none when it is neither shadowed nor a delegation). */
export function shadowMeta(
  record: CloudflareDnsRecord,
  zoneRecords: CloudflareDnsRecord[],
  zoneName: string,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const shadowing = shadowingDelegations(record, zoneRecords, zoneName);
  if (shadowing.length > 0) meta.shadowed_by = shadowing.map((ns) => ns.id);
  if (record.type === "A" || record.type === "AAAA") {
    const glueFor = shadowing.filter((ns) => normaliseName(ns.content) === record.name);
    if (glueFor.length > 0) {
      meta.is_glue = true;
      // Dead when a shallower delegation takes the name its own delegation would be served from.
      const dead = glueFor.every((ns) =>
        shadowing.some((other) => other.name !== ns.name && isAtOrUnder(ns.name, other.name)),
      );
      if (dead) meta.dead_glue = true;
    }
  }
  if (isDelegation(record, zoneName)) {
    const count = zoneRecords.filter(
      (other) => isAtOrUnder(other.name, record.name) && !(other.type === "NS" && other.name === record.name),
    ).length;
    if (count > 0) meta.shadowed_records_count = Math.min(count, SHADOWED_COUNT_CAP);
  }
  return meta;
}

/**
 * The condition of `shadowed_by_name` / `shadowing_name`, or undefined when neither is given.
 * Either value must be a name below the zone's apex; `shadowed_by_name` also needs
 * `include_shadow_metadata=true` (the reference: "returns an error" without it; the error is
 * `cloudflareErrors.invalidListParameter`, chosen).
 */
export function shadowFilter(
  query: URLSearchParams,
  zoneName: string,
): ((record: CloudflareDnsRecord) => boolean) | undefined {
  const shadowedBy = query.get("shadowed_by_name");
  const shadowing = query.get("shadowing_name");
  if (shadowedBy === null && shadowing === null) return undefined;
  const below = (value: string, key: string) => {
    const name = normaliseName(value);
    if (name === zoneName || !isAtOrUnder(name, zoneName)) {
      throw cloudflareErrors.invalidListParameter(`${key} must be a subdomain of the zone.`);
    }
    return name;
  };
  const conditions: ((record: CloudflareDnsRecord) => boolean)[] = [];
  if (shadowedBy !== null) {
    if (query.get("include_shadow_metadata") !== "true") {
      throw cloudflareErrors.invalidListParameter("shadowed_by_name requires include_shadow_metadata=true.");
    }
    const delegation = below(shadowedBy, "shadowed_by_name");
    conditions.push(
      (record) =>
        isAtOrUnder(record.name, delegation) && !(record.type === "NS" && record.name === delegation),
    );
  }
  if (shadowing !== null) {
    const name = below(shadowing, "shadowing_name");
    conditions.push(
      (record) => record.type === "NS" && record.name !== zoneName && isAtOrUnder(name, record.name),
    );
  }
  return (record) => conditions.every((condition) => condition(record));
}
