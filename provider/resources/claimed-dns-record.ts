import * as pulumi from "@pulumi/pulumi";
import type { ClaimPolicy } from "../dns/existing-records";
import type { RecordPurpose } from "../dns/zone-records";
import type { OriginalRecord, Ownership } from "../dynamic/claimed-record-contents";
import { EmailDeliveryDynamicResource } from "./dynamic-resource";

/** A `Domain` record that may take over one the zone already holds (see `ClaimedDnsRecord`). */
export interface ClaimedDnsRecordArgs {
  /** The Cloudflare zone's id. */
  zoneId: pulumi.Input<string>;
  /** Which of the domain's records it is. */
  purpose: RecordPurpose;
  /** The FQDN, lowercase, without a final dot. */
  name: pulumi.Input<string>;
  /** The record type. */
  type: "TXT" | "CNAME" | "MX";
  /** As Cloudflare stores it (TXT quoted). For `merge`, the service's whole SPF record. */
  content: pulumi.Input<string>;
  /** The MX priority; MX records only. */
  priority?: pulumi.Input<number>;
  /** TTL in seconds; 1 means automatic. */
  ttl: number;
  /** Starts with the stack's ownership mark. */
  comment: pulumi.Input<string>;
  /** What to do with a record the zone already holds at the name. */
  policy: ClaimPolicy;
  /** `project/stack`. */
  owner: string;
  /** What the stack was called before `pulumi stack rename` (`emailDelivery:formerStackNames`). */
  formerStacks?: string[];
}

/**
 * A DNS record the `Domain` component publishes where the zone may already hold one: it adopts an
 * identical record, overwrites or merges into (SPF) the user's, adds beside (MX), or creates one,
 * and on destroy gives back what it took (see `claimedRecordProvider`). Registered as
 * `pulumi-nodejs:dynamic/email-delivery:ClaimedDnsRecord`, a child of the `Domain`.
 *
 * @group Resources
 */
export class ClaimedDnsRecord extends EmailDeliveryDynamicResource {
  /** The Cloudflare record's id. */
  declare readonly recordId: pulumi.Output<string>;
  /** How this stack came to hold the record, which decides what destroy does with it. */
  declare readonly ownership: pulumi.Output<Ownership>;
  /** What the record held before an adoption, an overwrite or a merge. */
  declare readonly original: pulumi.Output<OriginalRecord | undefined>;
  /** The includes a merge added to the user's SPF record (what destroy removes). */
  declare readonly added: pulumi.Output<string[] | undefined>;
  /** What the record holds, as last written or read (TXT quoted). */
  declare readonly publishedContent: pulumi.Output<string>;
  /** True when a refresh found the record proxied (written unproxied again by the next update). */
  declare readonly publishedProxied: pulumi.Output<boolean | undefined>;

  constructor(name: string, args: ClaimedDnsRecordArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      "claimedRecordProvider",
      "ClaimedDnsRecord",
      name,
      { ...args },
      ["recordId", "ownership", "original", "added", "publishedContent", "publishedProxied"],
      // Deleted before a replacement is made: the zone would refuse a second identical record.
      { deleteBeforeReplace: true, ...opts },
    );
  }
}
