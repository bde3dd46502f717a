import type * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import { Claim, claimFor, ExistingRecord, PlannedRecord, Publisher } from "../dns/existing-records";
import { recordOwner } from "../dns/ownership";
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
   * Whether this stack has published records for `domain` already (a record with its mark at the
   * return path, or anywhere under the domain the run's reads cover): the domain is then one the
   * stack made before, whose records' contents the service gave and the next checks know.
   */
  async publishedBefore(
    component: string,
    zoneId: string,
    domain: string,
    returnPath: string,
    publisher: Publisher,
  ): Promise<boolean> {
    const records = await this.reading(
      component,
      zoneId,
      domain,
      async () =>
        (await this.reads.recordsUnder(zoneId, domain)) ?? (await this.recordsAt(zoneId, returnPath)),
    );
    return records.some(
      (record) =>
        recordOwner(record.comment, publisher.project, publisher.stack, publisher.formerStacks).kind ===
        "this-stack",
    );
  }

  /** A read of the zone, whose failure names the component, the zone and the name. */
  private async reading<T>(
    component: string,
    zoneId: string,
    name: string,
    read: () => Promise<T>,
  ): Promise<T> {
    try {
      return await read();
    } catch (error) {
      const reason = error instanceof Error && error.message ? error.message : String(error);
      throw new pulumi.ResourceError(
        `Domain ${component}: the read of zone ${zoneId} at ${name} failed: ${reason}`,
        this.parent,
      );
    }
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
    /** For a record whose content is not known yet: true when the stack published for the domain before. */
    publishedBefore = false,
  ): Promise<Claim> {
    const zone = await this.reading(component, zoneId, planned.name, () =>
      this.recordsAt(zoneId, planned.name),
    );
    const claim = claimFor(planned, zone, policies.of(planned.purpose), publisher);
    if (claim.action === "refuse")
      throw new pulumi.ResourceError(`Domain ${component}: ${claim.problem}`, this.parent);
    if (claim.action === "merge") await this.checkMerge(component, planned, claim, publishedBefore);
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
   * A merged SPF record must stay within RFC 7208's 10 DNS lookups, and be one receivers accept.
   * Before the service has said which include it needs (a domain it does not have yet), the user's
   * record is what is known, and the include will cost one lookup more: a record already at the
   * limit fails here, before the domain is made, rather than at the merge once it exists. Once the
   * include is known, the merged record is counted whole, here and again just before it is written.
   */
  private async checkMerge(
    component: string,
    planned: PlannedRecord,
    claim: Extract<Claim, { action: "merge" }>,
    publishedBefore: boolean,
  ) {
    const merged = claim.content ?? unquoteTxt(claim.record.content);
    const { problem, warning, total } = await checkSpfLookups(merged, planned.name);
    const fail = (why: string) => {
      throw new pulumi.ResourceError(
        `Domain ${component}: cannot merge into the SPF record at ${planned.name}: ${why}`,
        this.parent,
      );
    };
    if (problem) fail(problem);
    if (claim.content === undefined && total + 1 > SPF_LOOKUP_LIMIT) {
      // A domain the stack made before: the record may hold the service's include already (this
      // stack merged it), which costs nothing more. The merge is counted whole once the service
      // names its include, before anything is written.
      if (publishedBefore) {
        pulumi.log.warn(
          `${component}: the SPF record at ${planned.name} needs ${total} DNS lookups: unless it already holds the ` +
            `service's include, merging it makes ${total + 1}, over the limit of ${SPF_LOOKUP_LIMIT} (RFC 7208 §4.6.4), ` +
            "and `pulumi up` stops before writing it.",
          this.parent,
        );
      } else {
        fail(
          `it already needs ${total} DNS lookups, and the service's include makes ${total + 1}, over the limit of ` +
            `${SPF_LOOKUP_LIMIT} that receivers evaluate (RFC 7208 §4.6.4: past it they return permerror, and every ` +
            "message fails SPF). Make room in the record (replace an `include:` by the addresses it stands for, drop a " +
            "mechanism nothing sends from). If the record already holds the service's include, take that include out: " +
            "this Domain adds it back, and the count then stays where it is.",
        );
      }
    }
    if (warning) pulumi.log.warn(`${component}: ${warning}`, this.parent);
  }
}
