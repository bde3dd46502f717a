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

/** The type of the resource a URN names (`…::email-delivery:index:Domain$cloudflare:…::name` → the last). */
export function urnType(urn: string): string | undefined {
  const qualified = urn.split("::")[2];
  return qualified?.split("$").pop();
}

/** The purposes a `Domain` names its records by (`recordResourceName`: `<domain>-<purpose>[-<n>]`). */
const OWN_RECORD = /^(spf|dkim|return-path|mx|dmarc)(-\d+)?$/;

/**
 * Whether a record is one a `Domain` publishes itself: a child of the Domain named as it names its
 * records (`primary-spf`, `primary-mx-0`). A record the user declares with `{ parent: domain }` is
 * the user's, and is judged as theirs.
 */
export function isDomainsOwnRecord(parentUrn: string | undefined, resourceName: string): boolean {
  if (parentUrn === undefined || urnType(parentUrn) !== TYPE_TOKENS.Domain) return false;
  const domainResource = parentUrn.split("::").pop()!;
  return (
    resourceName.startsWith(`${domainResource}-`) &&
    OWN_RECORD.test(resourceName.slice(domainResource.length + 1))
  );
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
export function recordFacts(type: string, resourceName: string, props: PlainProps): RecordFacts | undefined {
  if (type !== TYPE_TOKENS.DnsRecord && type !== TYPE_TOKENS.ClaimedDnsRecord) return undefined;
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
