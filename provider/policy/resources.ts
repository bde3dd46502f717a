import { TYPE_TOKENS } from "../resources/type-tokens";
import type { StackResource } from "./policy-kit";
import { dnsName, knownNumber, knownObject, knownString, PlainProps, UNKNOWN } from "./props";

/**
 * What the rules read from this package's resources and the records a stack declares: a `Domain`
 * component's recorded settings (`DomainSettings`), DNS records, routes and verifications, each
 * from plain properties (props.ts). Shared by resource policies (inputs) and stack policies
 * (outputs): the `Domain` records its settings under the same keys in both.
 */

export { TYPE_TOKENS };

/** The resources that declare a DNS record: the Cloudflare provider's, and a claimed record. */
export const RECORD_TYPES = [TYPE_TOKENS.DnsRecord, TYPE_TOKENS.ClaimedDnsRecord] as const;

/**
 * The type and name of the resource a URN names (`urn:pulumi:<stack>::<project>::<qualified
 * type>::<name>`, the type the qualified type's last: `…Domain$cloudflare:…` → the record's). Read
 * by position: a name may hold `::` itself.
 */
function urnParts(urn: string): { type: string; name: string } | undefined {
  // The last answer kept: each rule asks of a resource's parent, and a Domain's records come together.
  if (urn === lastUrn.urn) return lastUrn.parts;
  lastUrn = { urn, parts: readUrn(urn) };
  return lastUrn.parts;
}
let lastUrn: { urn: string; parts: ReturnType<typeof readUrn> } = { urn: "", parts: undefined };

function readUrn(urn: string): { type: string; name: string } | undefined {
  const project = urn.indexOf("::");
  const type = urn.indexOf("::", project + 2);
  const name = urn.indexOf("::", type + 2);
  if (project < 0 || type < 0 || name < 0) return undefined;
  const parentTypes = urn.lastIndexOf("$", name);
  return {
    type: urn.slice(parentTypes > type ? parentTypes + 1 : type + 2, name),
    name: urn.slice(name + 2),
  };
}

/** The purposes a `Domain` names its records by (`recordResourceName`: `<domain>-<purpose>[-<n>]`). */
const OWN_RECORD = /^(spf|dkim|return-path|mx|dmarc)(-\d+)?$/;

/** The purpose of a record a `Domain` publishes itself (`spf`, `mx`, …), or undefined for any other. */
export type OwnRecordPurpose = "spf" | "dkim" | "return-path" | "mx" | "dmarc";

/**
 * Which of its own records a `Domain` publishes this one as: a child of the Domain named as it names
 * its records (`primary-spf`, `primary-mx-0`). A record the user declares with `{ parent: domain }`
 * is the user's (undefined), and is judged as theirs.
 */
export function ownRecordPurpose(
  parentUrn: string | undefined,
  resourceName: string,
): OwnRecordPurpose | undefined {
  const parent = parentUrn === undefined ? undefined : urnParts(parentUrn);
  if (parent?.type !== TYPE_TOKENS.Domain || !resourceName.startsWith(`${parent.name}-`)) return undefined;
  return OWN_RECORD.exec(resourceName.slice(parent.name.length + 1))?.[1] as OwnRecordPurpose | undefined;
}

/** Whether a record is one a `Domain` publishes itself ({@link ownRecordPurpose}). */
export function isDomainsOwnRecord(parentUrn: string | undefined, resourceName: string): boolean {
  return ownRecordPurpose(parentUrn, resourceName) !== undefined;
}

/** A `Domain` as its recorded settings describe it. */
export interface DomainFacts {
  /** The component's resource name (`new Domain("primary", …)`). */
  resourceName: string;
  /** The domain's name, lowercase; undefined while unknown. */
  name: string | undefined;
  mx: boolean;
  adopt: boolean;
  /** The `dmarc` settings as given, undefined without, {@link UNKNOWN} while unknown. */
  dmarc: PlainProps | typeof UNKNOWN | undefined;
  /** False when verification is turned off; else the settings as declared. */
  verification: PlainProps | false;
  /** Absent for DNS hosted elsewhere. */
  cloudflare?: { zoneId: string | undefined; ttl: number | undefined; existingRecords: unknown };
}

/**
 * A `Domain`'s settings, or undefined for a `Domain` recorded by an earlier version of this
 * package, which recorded none (its settings show once it is run by this version).
 */
export function domainFacts(resourceName: string, props: PlainProps): DomainFacts | undefined {
  if (!("mx" in props) && !("name" in props)) return undefined;
  const name = knownString(props.name);
  const cloudflare = knownObject(props.cloudflare);
  return {
    resourceName,
    name: name === undefined ? undefined : dnsName(name),
    mx: props.mx !== false,
    adopt: props.adopt === true,
    dmarc: props.dmarc === UNKNOWN ? UNKNOWN : knownObject(props.dmarc),
    verification: props.verification === false ? false : (knownObject(props.verification) ?? {}),
    ...(cloudflare && {
      cloudflare: {
        zoneId: knownString(cloudflare.zoneId),
        ttl: knownNumber(cloudflare.ttl),
        existingRecords: cloudflare.existingRecords,
      },
    }),
  };
}

/** Every `Domain` of a stack with its settings, by URN. */
export function domainsOf(resources: readonly StackResource[]): Map<string, DomainFacts> {
  return new Map(
    resources.flatMap((resource) => {
      const domain =
        resource.type === TYPE_TOKENS.Domain ? domainFacts(resource.name, resource.props) : undefined;
      return domain ? [[resource.urn, domain] as const] : [];
    }),
  );
}

/** How messages name a domain: `Domain "primary" (mail.example.com)`. */
export function domainLabel(domain: Pick<DomainFacts, "resourceName" | "name">): string {
  return `Domain "${domain.resourceName}"${domain.name ? ` (${domain.name})` : ""}`;
}

/** A DNS record a stack declares: a `cloudflare.DnsRecord`, or a `Domain`'s `ClaimedDnsRecord`. */
export interface RecordFacts {
  /** The resource's name. */
  resourceName: string;
  /** Which resource type it is, for messages. */
  kind: "DnsRecord" | "ClaimedDnsRecord";
  /** Upper case; undefined while unknown. */
  type: string | undefined;
  /** Lowercase, without a final dot; undefined while unknown. */
  name: string | undefined;
  /** As given (TXT possibly quoted); {@link UNKNOWN} while unknown, undefined when absent. */
  content: string | typeof UNKNOWN | undefined;
  ttl: number | undefined;
  zoneId: string | undefined;
  /** A claimed record's purpose and policy (`spf`, `merge`…). */
  purpose?: string;
  policy?: string;
}

/** The record a resource of `type` declares, or undefined when it is not a DNS record. */
export function recordFacts(
  resource: Pick<StackResource, "type" | "name" | "props">,
): RecordFacts | undefined {
  const { type, name: resourceName } = resource;
  if (type !== TYPE_TOKENS.DnsRecord && type !== TYPE_TOKENS.ClaimedDnsRecord) return undefined;
  // Read once the type says it is a record: the rules' resources copy their properties when read.
  const props = resource.props;
  const recordType = knownString(props.type);
  const name = knownString(props.name);
  const content = props.content === UNKNOWN ? UNKNOWN : knownString(props.content);
  return {
    resourceName,
    kind: type === TYPE_TOKENS.DnsRecord ? "DnsRecord" : "ClaimedDnsRecord",
    type: recordType?.toUpperCase(),
    name: name === undefined ? undefined : dnsName(name),
    content,
    ttl: knownNumber(props.ttl),
    zoneId: knownString(props.zoneId),
    ...(type === TYPE_TOKENS.ClaimedDnsRecord && {
      purpose: knownString(props.purpose),
      policy: knownString(props.policy),
    }),
  };
}

/** How messages name a record: `DnsRecord "apex-spf" (TXT at example.com)`. */
export function recordLabel(record: RecordFacts): string {
  const where = record.name ? ` at ${record.name}` : "";
  return `${record.kind} "${record.resourceName}" (${record.type ?? "record"}${where})`;
}

/** At most three labels, then how many more: a message stays short however many there are. */
export function listed(labels: readonly string[]): string {
  const shown = labels.slice(0, 3).join(", ");
  return labels.length > 3 ? `${shown} and ${labels.length - 3} more` : shown;
}
