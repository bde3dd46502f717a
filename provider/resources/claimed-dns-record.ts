import * as pulumi from "@pulumi/pulumi";
import type { ClaimPolicy } from "../dns/existing-records";
import type { RecordPurpose } from "../dns/zone-records";
import type { OriginalRecord, Ownership } from "../providers/claimed-record-contents";
import { EmailDeliveryDynamicResource } from "./dynamic-resource";

/** A `Domain` record that may take over one the zone already holds (see `ClaimedDnsRecord`). */
export interface ClaimedDnsRecordArgs {
  zoneId: pulumi.Input<string>;
  purpose: RecordPurpose;
  /** The FQDN, lowercase, without a final dot. */
  name: pulumi.Input<string>;
  type: "TXT" | "CNAME" | "MX";
  /** As Cloudflare stores it (TXT quoted). For `merge`, the service's whole SPF record. */
  content: pulumi.Input<string>;
  priority?: pulumi.Input<number>;
  ttl: number;
  /** Starts with the stack's ownership mark. */
  comment: pulumi.Input<string>;
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
 */
export class ClaimedDnsRecord extends EmailDeliveryDynamicResource {
  declare readonly recordId: pulumi.Output<string>;
  declare readonly ownership: pulumi.Output<Ownership>;
  declare readonly original: pulumi.Output<OriginalRecord | undefined>;
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
