import type * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import { Claim, claimFor, ExistingRecord, PlannedRecord, Publisher } from "../dns/existing-records";
import { SPF_LOOKUP_LIMIT } from "../dns/spf-lookup-count";
import { checkSpfLookups } from "../dns/spf-lookups";
import { unquoteTxt } from "../dns/txt";
import { ZoneReads, zoneReadsFor } from "./zone-reads";
import type { ExistingRecordPolicies } from "./existing-record-policies";

/**
 * What a zone holds at the names one `Domain` publishes to, and the checks made with it. The reads
 * are the program run's, shared by every `Domain` on the zone (zone-reads.ts).
 */
export class ZoneSurvey {
  private readonly reads: ZoneReads;

  constructor(
    provider: cloudflare.Provider | undefined,
    private readonly parent: pulumi.Resource,
  ) {
    this.reads = zoneReadsFor(provider, parent);
  }

  /** Counts the domain `name` among the run's domains on `zoneId` (before the zone is read). */
  register(zoneId: string, name: string): void {
    this.reads.register(zoneId, name);
  }

  /** The zone's records named `name` (any type). */
  recordsAt(zoneId: string, name: string): Promise<ExistingRecord[]> {
    return this.reads.recordsAt(zoneId, name);
  }

  /**
   * Fails with the component's name and the problem when the zone holds a record at `planned`'s
   * name that the policy does not allow for; what it will do otherwise is logged at preview.
   */
  async check(
    component: string,
    zoneId: string,
    planned: PlannedRecord,
    policies: ExistingRecordPolicies,
    publisher: Publisher,
  ): Promise<Claim> {
    let zone: ExistingRecord[];
    try {
      zone = await this.recordsAt(zoneId, planned.name);
    } catch (error) {
      throw new pulumi.ResourceError(`Domain ${component}: ${(error as Error).message}`, this.parent);
    }
    const claim = claimFor(planned, zone, policies.of(planned.purpose), publisher);
    if (claim.action === "refuse")
      throw new pulumi.ResourceError(`Domain ${component}: ${claim.problem}`, this.parent);
    if (claim.action === "merge") await this.checkMerge(component, planned, claim);
    if (claim.action === "adopt" || claim.action === "overwrite" || claim.action === "merge") {
      const verb = { adopt: "adopts", overwrite: "overwrites", merge: "merges the service's include into" }[
        claim.action
      ];
      pulumi.log.info(
        `${component}: ${verb} the ${claim.record.type} record at ${claim.record.name} (id ${claim.record.id})`,
        this.parent,
      );
    }
    return claim;
  }

  /**
   * A merged SPF record must stay within RFC 7208's 10 DNS lookups. Before the service has said
   * which include it needs, the user's record is what is known: over the limit fails at preview,
   * at it warns; the whole count is made again, before anything is written, once the include is known.
   */
  private async checkMerge(
    component: string,
    planned: PlannedRecord,
    claim: Extract<Claim, { action: "merge" }>,
  ) {
    const merged = claim.content ?? unquoteTxt(claim.record.content);
    const { problem, warning, total } = await checkSpfLookups(merged, planned.name);
    if (problem) {
      throw new pulumi.ResourceError(
        `Domain ${component}: cannot merge into the SPF record at ${planned.name}: ${problem}`,
        this.parent,
      );
    }
    // Before the service has named its include, the record may hold it already (a stack that
    // merged before): one more lookup is only a warning here, and `up` counts again before writing.
    if (claim.content === undefined && total + 1 > SPF_LOOKUP_LIMIT) {
      pulumi.log.warn(
        `${component}: the SPF record at ${planned.name} needs ${total} DNS lookups: unless it already holds the ` +
          `service's include, merging it goes over the limit of ${SPF_LOOKUP_LIMIT} (RFC 7208 §4.6.4), and \`pulumi up\` ` +
          "will stop before writing it.",
        this.parent,
      );
    }
    if (warning) pulumi.log.warn(`${component}: ${warning}`, this.parent);
  }
}
