import { ExistingRecordPolicies } from "../resources/publishing/existing-record-policies";
import { stackRule } from "./policy-kit";
import { groupBy } from "./props";
import {
  domainLabel,
  domainsOf,
  ownRecordPurpose,
  listed,
  RecordFacts,
  recordFacts,
  recordLabel,
} from "./resources";
import { RecordName, recordName, stackZones, unresolvedName } from "./zones";

/**
 * Inbound mail goes to one provider: a receiving `Domain` does not publish the service's MX
 * records at a name where the stack declares another provider's, unless it says it means to
 * (`cloudflare.existingRecords: { mx: "add" }`). The package refuses MX records already in the zone
 * at preview; this catches the ones declared in the same program, which the zone does not hold yet.
 */
export const mxSingleProvider = stackRule({
  name: "email-mx-single-provider",
  description:
    "A receiving Domain's MX records are not published beside another provider's, unless declared (existingRecords.mx: \"add\").",
  enforcementLevel: "mandatory",
  validate(resources, _config, report) {
    const domains = domainsOf(resources);
    const zones = stackZones(resources, domains);
    const unresolved: { record: RecordFacts; at: Extract<RecordName, { possible: string[] }> }[] = [];
    const mxRecords = resources.flatMap((resource) => {
      // Which Domain published it, if it is one's own (`<domain>-mx-<n>` under it); its others
      // are not MX, known by their names before their properties are read.
      const own = ownRecordPurpose(resource.parent?.urn, resource.name);
      if (own && own !== "mx") return [];
      const record = recordFacts(resource);
      if (record?.type !== "MX" || !record.name) return [];
      const owner = own ? resource.parent!.urn : undefined;
      const at = recordName(record, resource.dependencies, zones);
      if ("name" in at) return [{ record, name: at.name, owner }];
      unresolved.push({ record, at });
      return [];
    });
    const mxAt = groupBy(mxRecords, ({ name }) => name);
    for (const [urn, domain] of domains) {
      if (!domain.cloudflare || !domain.mx || !domain.name) continue;
      const atName = mxAt.get(domain.name) ?? [];
      // An adopted domain that exists publishes nothing: it publishes MX only if the stack shows its own.
      if (domain.adopt && !atName.some(({ owner }) => owner === urn)) continue;
      let policy: string;
      try {
        policy = ExistingRecordPolicies.from(domain.cloudflare.existingRecords as never).of("mx");
      } catch {
        continue; // the Domain itself refuses such settings at preview
      }
      if (policy === "add") continue;
      const zoneId = domain.cloudflare.zoneId;
      const others = atName.filter(
        ({ record, owner }) =>
          owner !== urn && (zoneId === undefined || record.zoneId === undefined || record.zoneId === zoneId),
      );
      // A record whose name the stack cannot tell, in the Domain's zone, where it may be: flagged.
      for (const { record, at } of unresolved) {
        if (zoneId !== undefined && record.zoneId !== undefined && record.zoneId !== zoneId) continue;
        if (at.possible.length > 0 && !at.possible.includes(domain.name)) continue;
        report(
          `${unresolvedName(recordLabel(record), at)}, so whether it splits the inbound mail of ${domainLabel(domain)}, ` +
            "which publishes the service's MX records, cannot be checked.",
          urn,
        );
      }
      if (others.length === 0) continue;
      report(
        `${domainLabel(domain)} publishes the service's MX records at ${domain.name}, and the stack declares ` +
          `${listed(others.map(({ record }) => recordLabel(record)))} there too: inbound mail would be split ` +
          "between two providers. Set mx: false on the Domain for a sending-only domain, remove the other records, " +
          'or say that both are meant with cloudflare.existingRecords: { mx: "add" }.',
        urn,
      );
    }
  },
});
