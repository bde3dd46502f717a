import { SPF_LOOKUP_LIMIT, spfLookupTerms } from "../dns/spf-lookup-count";
import { isAll, isSpfRecord, parseSpf } from "../dns/spf-record";
import { readSpfTerms } from "../dns/spf-syntax";
import { unquoteTxt } from "../dns/txt";
import { spfOpenFamilies } from "../receivers/spf-open";
import { ExistingRecordPolicies } from "../resources/publishing/existing-record-policies";
import { resourceRule, stackRule } from "./policy-kit";
import { groupBy, UNKNOWN } from "./props";
import { RecordName, recordName, stackZones, unresolvedName } from "./zones";
import {
  DomainFacts,
  domainLabel,
  domainsOf,
  isDomainsOwnRecord,
  listed,
  ownRecordPurpose,
  RecordFacts,
  recordFacts,
  recordLabel,
  RECORD_TYPES,
} from "./resources";

/**
 * SPF (RFC 7208) as receivers read it, with the package's own parser: a record that reads, within
 * the 10 DNS lookups a receiver makes for it, that ends in an `all` which does not let anyone
 * send (`+all`, or `?all`, which says nothing), and one SPF record per name in the stack.
 */

/**
 * `email-spf-record` (mandatory): an SPF record declared in the stack reads (RFC 7208 §12), needs at
 * most 10 DNS lookups by its own terms (the lookups inside what it includes need DNS queries, which
 * a policy does not make), and ends in `-all` or `~all`.
 */
export const spfRecord = resourceRule({
  name: "email-spf-record",
  description: "An SPF record reads, needs at most 10 DNS lookups, and ends in -all or ~all.",
  enforcementLevel: "mandatory",
  appliesTo: RECORD_TYPES,
  validate(subject, report) {
    // A Domain's other records (DKIM, return path, MX, DMARC) are the service's, and not SPF.
    const own = ownRecordPurpose(subject.parent, subject.name);
    if (own && own !== "spf") return;
    const record = recordFacts(subject);
    if (!record || record.type !== "TXT") return;
    if (record.content === UNKNOWN) {
      subject.notApplicable(
        own === "spf"
          ? "the SPF record's content is the service's, known once it has answered (`pulumi up`)"
          : "the TXT record's content is not known until `pulumi up` (another resource's output): whether it is an SPF record, and how it reads, is judged then, before it is written",
      );
    }
    const text = typeof record.content === "string" ? unquoteTxt(record.content) : "";
    if (!isSpfRecord(text)) return;
    if (record.policy === "merge") {
      subject.notApplicable(
        "merged into the zone's SPF record at `pulumi up`: the record published is the zone's, which a policy cannot read",
      );
    }
    const label = recordLabel(record);
    const syntax = readSpfTerms(text);
    if ("error" in syntax) {
      report(
        `${label} is not an SPF record receivers can read: "${syntax.error.term}" ${syntax.error.rule}. ` +
          "Every check of mail in its name is then a permerror: correct the term.",
      );
      return;
    }
    const lookups = spfLookupTerms(text);
    if (lookups.length > SPF_LOOKUP_LIMIT) {
      report(
        `${label} needs at least ${lookups.length} DNS lookups (${lookups.map((term) => term.text).join(", ")}), ` +
          `over RFC 7208's limit of ${SPF_LOOKUP_LIMIT}: receivers answer permerror. Replace includes with the ` +
          "ip4:/ip6: ranges they stand for, or drop senders you no longer use.",
      );
    }
    for (const open of spfOpenFamilies(syntax.terms)) {
      report(
        `${label} lets any server send as the domain over ${open.family}: ${open.terms.map((term) => `"${term}"`).join(" and ")} ` +
          `cover${open.terms.length === 1 ? "s" : ""} every ${open.family} address, which then passes as with "+all". ` +
          'List only your senders\' networks, and end the record with "-all" or "~all".',
      );
    }
    const terms = parseSpf(text)?.terms ?? [];
    const all = terms.find(isAll);
    if (!all && !terms.some((term) => term.kind === "modifier" && term.name === "redirect")) {
      report(
        `${label} ends in no "all" (and has no redirect=), so mail from any other server gets neutral, as with ` +
          '"?all" (RFC 7208 §4.7). End it with "-all" or "~all".',
      );
    }
    if (
      all &&
      all.kind === "mechanism" &&
      (all.qualifier === "" || all.qualifier === "+" || all.qualifier === "?")
    ) {
      const what =
        all.qualifier === "?"
          ? "says nothing about other senders (?all)"
          : "lets any server send as the domain";
      report(`${label} ${what}: "${all.text}". End it with "-all" or "~all".`);
    }
  },
});

/** Who publishes an SPF record at a name: a Domain (its settings), or a record declared by hand. */
interface SpfPublisher {
  name: string;
  zoneId: string | undefined;
  label: string;
  urn: string;
  domain?: DomainFacts;
  dependencies: string[];
}

/**
 * A Domain that merges into a record of the stack: `existingRecords.spf: "merge"`, created after
 * that record (`dependsOn`), so the zone holds one SPF record with the service's include in it.
 */
function mergesInto(domain: SpfPublisher, record: SpfPublisher): boolean {
  if (!domain.domain || record.domain) return false;
  let policy: string;
  try {
    policy = ExistingRecordPolicies.from(domain.domain.cloudflare?.existingRecords as never).of("spf");
  } catch {
    return false; // the Domain itself refuses such settings at preview
  }
  return policy === "merge" && domain.dependencies.includes(record.urn);
}

/**
 * `email-spf-single-record` (stack, mandatory): no two SPF records at one name in the stack, a
 * Domain's included, unless the Domain merges into the other (`existingRecords.spf: "merge"` and
 * `dependsOn` on it).
 */
export const spfSingleRecord = stackRule({
  name: "email-spf-single-record",
  description: "A name has one SPF record: two make every check of mail in its name a permerror.",
  enforcementLevel: "mandatory",
  validate(resources, _config, report) {
    const domains = domainsOf(resources);
    const zones = stackZones(resources, domains);
    const publishers: SpfPublisher[] = [];
    const doubtful: { record: RecordFacts; at: RecordName; urn: string }[] = [];
    for (const resource of resources) {
      const domain = domains.get(resource.urn);
      if (domain) {
        // An adopted domain that exists publishes nothing: its own records, if any, count below.
        if (!domain.cloudflare || !domain.name || domain.adopt) continue;
        publishers.push({
          name: domain.name,
          zoneId: domain.cloudflare.zoneId,
          label: domainLabel(domain),
          urn: resource.urn,
          domain,
          dependencies: resource.dependencies,
        });
        continue;
      }
      const owner = isDomainsOwnRecord(resource.parent?.urn, resource.name)
        ? domains.get(resource.parent!.urn)
        : undefined;
      // A Domain's own SPF record is counted through its settings (an adopted one's, here).
      if (owner && !owner.adopt) continue;
      const record = recordFacts(resource);
      if (!record?.name || record.type !== "TXT") continue;
      const spf = typeof record.content === "string" && isSpfRecord(unquoteTxt(record.content));
      if (!spf && (record.content !== UNKNOWN || owner)) continue;
      const at = recordName(record, resource.dependencies, zones);
      // Judged below, against the publishers: a name the stack cannot tell, or content not known yet.
      if (!("name" in at) || !spf) {
        doubtful.push({ record, at, urn: resource.urn });
        continue;
      }
      publishers.push({
        name: at.name,
        zoneId: record.zoneId,
        label: owner ? domainLabel(owner) : recordLabel(record),
        urn: resource.urn,
        domain: owner,
        dependencies: resource.dependencies,
      });
    }
    // By name: a stack of a thousand domains compares each with the few at its name.
    const atName = groupBy(publishers, (publisher) => publisher.name);
    for (const { record, at, urn } of doubtful) reportDoubtful(record, at, publishers, atName, urn, report);
    for (const publisher of publishers) {
      const others = atName
        .get(publisher.name)!
        .filter(
          (other) =>
            other !== publisher &&
            (other.zoneId === undefined ||
              publisher.zoneId === undefined ||
              other.zoneId === publisher.zoneId) &&
            !mergesInto(publisher, other) &&
            !mergesInto(other, publisher),
        );
      if (others.length === 0) continue;
      const fix = publisher.domain
        ? " Keep one: put your senders and the service's include in one record, and give this Domain " +
          'cloudflare.existingRecords: { spf: "merge" } with dependsOn on that record, so the include is merged into it.'
        : " Keep one record with every sender in it.";
      report(
        `${publisher.label} publishes an SPF record at ${publisher.name}, and so does ` +
          `${listed(others.map((other) => other.label))}. A name may have one (RFC 7208 §3.2); with two, ` +
          `receivers answer permerror for every message.${fix}`,
        publisher.urn,
      );
    }
  },
});

/**
 * A TXT record the stack rule cannot place or read (its name relative to a zone the stack does not
 * name, or its content unknown in a preview) where another SPF record may be: said, never passed
 * in silence, so the preview stops it before `up` writes a second record.
 */
function reportDoubtful(
  record: RecordFacts,
  at: RecordName,
  publishers: readonly SpfPublisher[],
  atName: Map<string, SpfPublisher[]>,
  urn: string,
  report: (message: string, urn: string) => void,
): void {
  const sameZone = (other: SpfPublisher) =>
    other.zoneId === undefined || record.zoneId === undefined || other.zoneId === record.zoneId;
  const names = "name" in at ? [at.name] : at.possible;
  const others = (names.length > 0 ? names.flatMap((name) => atName.get(name) ?? []) : publishers).filter(
    sameZone,
  );
  if (others.length === 0) return;
  const label = recordLabel(record);
  const also = `${listed(others.map((other) => `${other.label} at ${other.name}`))} publishes one`;
  if (!("name" in at)) {
    report(
      `${unresolvedName(label, at)}, so whether it is a second SPF record beside ${also} cannot be checked: ` +
        "with two at one name, receivers answer permerror for every message (RFC 7208 §3.2).",
      urn,
    );
    return;
  }
  report(
    `${label}'s content is not known in this preview (another resource's output), and ${also} at ${at.name}: ` +
      "if it is an SPF record, the name has two, and receivers answer permerror for every message (RFC 7208 §3.2). " +
      "Give it content known at preview, or put every sender in one record.",
    urn,
  );
}
