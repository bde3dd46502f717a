import { ExistingRecordPolicies } from "../resources/existing-record-policies";
import { stackRule } from "./policy-kit";
import { groupBy } from "./props";
import { domainFacts, domainLabel, recordFacts, recordLabel, TYPE_TOKENS } from "./resources";

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
    const mxRecords = resources.flatMap((resource) => {
      const record = recordFacts(resource.type, resource.name, resource.props);
      return record?.type === "MX" && record.name ? [{ record, parent: resource.parent?.urn }] : [];
    });
    const mxAt = groupBy(mxRecords, ({ record }) => record.name!);
    for (const resource of resources) {
      if (resource.type !== TYPE_TOKENS.Domain) continue;
      const domain = domainFacts(resource.name, resource.props);
      if (!domain?.cloudflare || !domain.mx || !domain.name) continue;
      let policy: string;
      try {
        policy = ExistingRecordPolicies.from(domain.cloudflare.existingRecords as never).of("mx");
      } catch {
        continue; // the Domain itself refuses such settings at preview
      }
      if (policy === "add") continue;
      const zoneId = domain.cloudflare.zoneId;
      const others = (mxAt.get(domain.name) ?? []).filter(
        ({ record, parent }) =>
          parent !== resource.urn &&
          (zoneId === undefined || record.zoneId === undefined || record.zoneId === zoneId),
      );
      if (others.length === 0) continue;
      report(
        `${domainLabel(domain)} publishes the service's MX records at ${domain.name}, and the stack declares ` +
          `${others.map(({ record }) => recordLabel(record)).join(", ")} there too: inbound mail would be split ` +
          "between two providers. Set mx: false on the Domain for a sending-only domain, remove the other records, " +
          'or say that both are meant with cloudflare.existingRecords: { mx: "add" }.',
        resource.urn,
      );
    }
  },
});
