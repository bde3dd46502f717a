import { organizationalDomain } from "../receivers/dmarc-evaluation";
import type { StackResource } from "./policy-kit";
import { dnsName, knownString } from "./props";
import type { DomainFacts, RecordFacts } from "./resources";

/**
 * Record names as Cloudflare reads them: `@` is the zone's apex, and a name that does not end in
 * the zone's name is relative to it (`mail` in zone `example.com` is `mail.example.com`). A policy
 * knows a zone's name from the stack: a `cloudflare.Zone` the record depends on, or the `Domain`s
 * published in the same zone id (a zone holds each of its domains, and lies at or under their
 * organizational domain, RFC 7489 §3.2). Pure.
 */

/** The `cloudflare.Zone` resource type. */
const ZONE_TYPE = "cloudflare:index/zone:Zone";

/** Where a record lands: one name, or the names it may be (none known) when the stack cannot tell. */
export type RecordName = { name: string } | { possible: string[]; written: string };

/** The zones a stack's records may be in: by zone id, and each `cloudflare.Zone`'s name by URN. */
export interface StackZones {
  byId: Map<string, string[]>;
  byUrn: Map<string, string>;
}

/** The names a zone may have, from the domains published in it: the suffixes every one of them shares. */
function candidates(names: readonly string[]): string[] {
  const suffixes = names.map((name) => {
    const organization = organizationalDomain(name);
    const labels = name.split(".");
    const out: string[] = [];
    for (let index = 0; index < labels.length; index++) {
      const suffix = labels.slice(index).join(".");
      out.push(suffix);
      if (suffix === organization) break;
    }
    return out;
  });
  return suffixes.reduce((shared, each) => shared.filter((suffix) => each.includes(suffix)));
}

/** What the stack says of its zones' names. */
export function stackZones(
  resources: readonly StackResource[],
  domains: Map<string, DomainFacts>,
): StackZones {
  const namesById = new Map<string, string[]>();
  for (const domain of domains.values()) {
    const zoneId = domain.cloudflare?.zoneId;
    if (!zoneId || !domain.name) continue;
    const names = namesById.get(zoneId);
    if (names) names.push(domain.name);
    else namesById.set(zoneId, [domain.name]);
  }
  const byUrn = new Map<string, string>();
  for (const resource of resources) {
    if (resource.type !== ZONE_TYPE) continue;
    const name = knownString(resource.props.name) ?? knownString(resource.props.zone);
    if (name) byUrn.set(resource.urn, dnsName(name));
  }
  return {
    byId: new Map([...namesById].map(([zoneId, names]) => [zoneId, candidates(names)])),
    byUrn,
  };
}

/** Where `record` (of a stack resource depending on `dependencies`) lands, as Cloudflare reads its name. */
export function recordName(
  record: RecordFacts,
  dependencies: readonly string[],
  zones: StackZones,
): RecordName {
  const written = record.name!;
  const zone = dependencies.map((urn) => zones.byUrn.get(urn)).find((name) => name !== undefined);
  const possible: string[] = zone
    ? [zone]
    : ((record.zoneId ? zones.byId.get(record.zoneId) : undefined) ?? []);
  if (possible.length === 0) {
    // No zone known: a full name reads as itself; `@` and a single label are relative to some zone.
    return written === "@" || !written.includes(".") ? { possible: [], written } : { name: written };
  }
  const names = [
    ...new Set(
      possible.map((apex) =>
        written === "@"
          ? apex
          : written === apex || written.endsWith(`.${apex}`)
            ? written
            : `${written}.${apex}`,
      ),
    ),
  ];
  return names.length === 1 ? { name: names[0] } : { possible: names, written };
}

/** Why a record's name cannot be told, for messages. */
export function unresolvedName(label: string, name: Extract<RecordName, { possible: string[] }>): string {
  const which =
    name.possible.length > 0
      ? ` (it may be ${name.possible.join(" or ")})`
      : " (no Domain or cloudflare.Zone of the stack is in its zone)";
  return (
    `${label} is named "${name.written}", relative to its zone, and the stack does not say which zone that is${which}: ` +
    `cannot tell which name "${name.written}" is. Give the record its full name (for example "${name.possible[0] ?? "example.com"}")`
  );
}
