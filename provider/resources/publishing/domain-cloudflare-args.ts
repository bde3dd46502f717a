import type * as cloudflare from "@pulumi/cloudflare";
import type * as pulumi from "@pulumi/pulumi";
import type { ExistingRecordPolicy } from "../../dns";
import type { ExistingRecordsArgs } from "./existing-record-policies";

/** The records' TTL when none is given: Cloudflare's "automatic" is 300 seconds too. */
export const DEFAULT_RECORD_TTL = 300;

/**
 * `Domain`'s `cloudflare` option: where and how its DNS records are published. In a module of its
 * own so that the record code reading it does not import the component (`domain.ts` exports it).
 */
export interface DomainCloudflareArgs {
  /**
   * The id of the Cloudflare zone that holds the domain (the domain's own zone or a parent's):
   * 32 hex digits, on the zone's Overview page. A plain value of another form fails at preview.
   * @example "023e105f4ecef8ad9ca31a8372d0c353"
   */
  zoneId: pulumi.Input<string>;
  /**
   * TTL of the records, in seconds: 1 (automatic) or 60 to 86400. Another value fails the
   * program before anything is sent.
   * @default 300
   */
  ttl?: number;
  /**
   * The Cloudflare provider to publish with, e.g. one with a scoped token or another `baseUrl`.
   * The zone is read with it too. Records claimed under `existingRecords` other than "fail" are
   * written by this package with the default provider's settings, so they cannot use another.
   * @default the default Cloudflare provider
   */
  provider?: cloudflare.Provider;
  /**
   * What each record's comment says after this stack's ownership mark, `pulumi <project>/<stack>`,
   * which is always first (it is how a later run knows the record is this stack's): `""` for the
   * mark alone. Cut to Cloudflare's 100 characters on free plans.
   * @default "email <purpose>"
   * @example "managed by the mail stack"
   */
  comment?: pulumi.Input<string>;
  /**
   * What to do when the zone already holds a record this stack did not make where the domain
   * publishes one: "fail" (stop at preview, naming it and the choices), "adopt" (manage it when it
   * is identical; left as it is on destroy), "overwrite" (replace it; restored on destroy); one
   * policy for all, or per record, where SPF also takes "merge" and MX "add". See docs/existing-records.md.
   * @default "fail"
   * @example { spf: "merge" }
   */
  existingRecords?: ExistingRecordPolicy | ExistingRecordsArgs;
}
