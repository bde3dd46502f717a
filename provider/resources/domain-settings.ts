import type * as pulumi from "@pulumi/pulumi";
import type { DmarcArgs, ExistingRecordPolicy } from "../dns";
import type { DomainVerificationArgs } from "./domain-verification";
import { DEFAULT_RECORD_TTL } from "./publishing/domain-cloudflare-args";
import type { ExistingRecordsArgs } from "./publishing/existing-record-policies";

/**
 * What a `Domain` declares, as it records it: its component inputs, and the same keys among its
 * outputs. Pulumi shows a component only what it records, so this is how policies
 * (`pulumi-email-delivery/policy`) see a domain's settings: resource policies get the inputs as
 * each resource is registered, stack policies the outputs at the end of a preview or update.
 * Plain data with the component's defaults applied; the Cloudflare provider (a resource) and the
 * records' comment are left out.
 */
export interface DomainSettings {
  /** The domain's name. */
  name: pulumi.Input<string>;
  /** Whether the service's MX records are published (`Domain`'s `mx`). */
  mx: boolean;
  /** Whether a domain of this name on the service is taken over (`Domain`'s `adopt`). */
  adopt: boolean;
  /** The DMARC policy published at `_dmarc.<name>`, absent when none is. */
  dmarc?: DmarcArgs;
  /** The verification's settings as declared (`{}` for the defaults), or `false`: no waiting. */
  verification: Omit<DomainVerificationArgs, "domainId" | "dnsRecords" | "zoneId"> | false;
  /** Where the records are published, absent for DNS hosted elsewhere. */
  cloudflare?: {
    zoneId: pulumi.Input<string>;
    /** The records' TTL in seconds (1: automatic). */
    ttl: number;
    /** The policy for records the zone already holds, as declared (`"fail"` by default). */
    existingRecords: ExistingRecordPolicy | ExistingRecordsArgs;
  };
}

/** What a `Domain` with these arguments records (see {@link DomainSettings}). */
export function domainSettings(args: {
  name: pulumi.Input<string>;
  mx?: boolean;
  adopt?: boolean;
  dmarc?: DmarcArgs;
  verification?: DomainSettings["verification"];
  cloudflare?: {
    zoneId: pulumi.Input<string>;
    ttl?: number;
    existingRecords?: ExistingRecordPolicy | ExistingRecordsArgs;
  };
}): DomainSettings {
  return {
    name: args.name,
    mx: args.mx ?? true,
    adopt: args.adopt ?? false,
    ...(args.dmarc !== undefined && { dmarc: args.dmarc }),
    verification: args.verification ?? {},
    ...(args.cloudflare && {
      cloudflare: {
        zoneId: args.cloudflare.zoneId,
        ttl: args.cloudflare.ttl ?? DEFAULT_RECORD_TTL,
        existingRecords: args.cloudflare.existingRecords ?? "fail",
      },
    }),
  };
}
