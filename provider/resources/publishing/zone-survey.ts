import type * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import { Claim, claimFor } from "../../dns/existing-records";
import { competes, ExistingRecord, PlannedRecord } from "../../dns/zone-records";
import { dmarcRecordName } from "../../dns/dmarc";
import { recordOwner } from "../../dns/ownership";
import { SPF_LOOKUP_LIMIT } from "../../dns/spf-lookup-count";
import { checkSpfLookups } from "../../dns/spf-lookups";
import { unquoteTxt } from "../../dns/txt";
import { saysZoneUnreachable, ZONE_ID_CHECK } from "../../cloudflare/failure-advice";
import { mergeSpfIncludes } from "../../dns/spf";
import { ZoneNotRead, ZoneReads, zoneReadsFor } from "./zone-reads";
import type { ExistingRecordPolicies } from "./existing-record-policies";
import type { PublishingConfig } from "./stack-config";

/** `ZoneReads.firstNotRead`'s key for "the mocks answered without records" (once per run, any zone). */
const UNDER_MOCKS = "(unit-test mocks)";

/** How a check of one record is made. */
export interface CheckOptions {
  /** For a record whose content is not known yet: true when the stack published for the domain before. */
  publishedBefore?: boolean;
  /** The record is about to be written (not the look before the domain is made). */
  writing?: boolean;
}

/**
 * What a zone holds at the names one `Domain` publishes to, and the checks made with it, in the
 * Domain's words: its component name in every message, its policies, this stack. The reads are
 * the program run's, shared by every `Domain` on the zone (zone-reads.ts).
 */
export class ZoneSurvey {
  private readonly reads: ZoneReads;

  constructor(
    /** The `Domain` component's name, which every message starts with. */
    private readonly component: string,
    private readonly policies: ExistingRecordPolicies,
    private readonly config: PublishingConfig,
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
   * Whether this stack has published records for `domain` already: a record with its mark at one
   * of the names this domain publishes at (the name, the return path, `_dmarc.`, a
   * `._domainkey.` name), among those the run's reads cover (else the return path's). The domain
   * is then one the stack made before, whose records' contents the service gave and the next
   * checks know.
   */
  async publishedBefore(zoneId: string, domain: string): Promise<boolean> {
    const returnPath = `${this.config.returnPathPrefix}.${domain}`;
    const { publisher } = this.config;
    const records = await this.reading(
      zoneId,
      domain,
      async () =>
        (await this.reads.recordsUnder(zoneId, domain)) ?? (await this.recordsAt(zoneId, returnPath)),
    );
    if (records === undefined) return false;
    // Only the names this domain publishes at: the stack's records of another Domain under it (a
    // subdomain's) say nothing about this one.
    const own = new Set([domain, returnPath, dmarcRecordName(domain)].map((n) => n.toLowerCase()));
    const dkim = new RegExp(`^[^.]+\\._domainkey\\.${domain.toLowerCase().replace(/\./g, "\\.")}$`);
    return records.some(
      (record) =>
        (own.has(record.name.toLowerCase()) || dkim.test(record.name.toLowerCase())) &&
        recordOwner(record.comment, publisher.project, publisher.stack, publisher.formerStacks).kind ===
          "this-stack",
    );
  }

  /**
   * A read of the zone, whose failure names the component, the zone and the name. Undefined when
   * a preview could not read it (the provider's configuration is not known yet): the checks are
   * then made by the update, which reads it before anything is made. Undefined too, in preview and
   * in update, when unit-test mocks answered without records: a unit test written from Pulumi's
   * testing guide (`call: (args) => args.inputs`) tests the program, not the zone, and must keep
   * passing when a Domain is added. Said once per run either way. Under the engine, an update
   * that could not read the zone fails: nothing is published unchecked.
   */
  private async reading<T>(zoneId: string, name: string, read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      const component = this.component;
      if (error instanceof ZoneNotRead && (error.underMocks || pulumi.runtime.isDryRun())) {
        if (this.reads.firstNotRead(error.underMocks ? UNDER_MOCKS : zoneId)) {
          pulumi.log.warn(
            error.underMocks
              ? `${component}: the zone checks were skipped: ${error.message}. Under \`pulumi preview\` and ` +
                  "`pulumi up` the zone is read and what it holds where the Domains publish is checked; to test " +
                  "those checks, answer that call with `{ results: [...] }`, or run the program with the test kit " +
                  "(pulumi-email-delivery/testing)."
              : `${component}: ${error.message}: what the zone holds where the Domains publish is checked by ` +
                  "`pulumi up`, before anything is made.",
            this.parent,
          );
        }
        return undefined;
      }
      const reason = error instanceof Error && error.message ? error.message : String(error);
      // A zone id the token cannot reach: the setting and what to check first, Cloudflare's words after.
      const headline = saysZoneUnreachable(reason)
        ? `Domain ${component}: cloudflare.zoneId "${zoneId}" is not a zone the Cloudflare provider's token can ` +
          `reach: ${ZONE_ID_CHECK}.\n`
        : "";
      throw new pulumi.ResourceError(
        `${headline}Domain ${component}: the read of zone ${zoneId} at ${name} failed: ${reason}`,
        this.parent,
      );
    }
  }

  /**
   * What to do at `planned`'s name, given what the zone holds there: a `refuse` is a record the
   * policy does not allow for (or an SPF record that a merge would make one receivers reject), its
   * problem said in full; what it will do otherwise is logged at preview. Throws only when the zone
   * could not be read.
   */
  async check(
    zoneId: string,
    planned: PlannedRecord,
    { publishedBefore = false, writing = false }: CheckOptions = {},
  ): Promise<Claim> {
    const { component, policies } = this;
    const { publisher } = this.config;
    const zone = await this.reading(zoneId, planned.name, () => this.recordsAt(zoneId, planned.name));
    if (zone === undefined) return { action: "undecided" };
    let claim = claimFor(planned, zone, policies.of(planned.purpose), publisher);
    // About to publish where nothing is, not even the stack's own record: the zone as it is now,
    // not as the run's first read found it minutes ago (zone-reads.ts `confirmedAt`). A record
    // added meanwhile is refused under "fail", never doubled. A preview writes nothing, and a
    // record the stack holds already is not written again: neither pays for it.
    if (
      writing &&
      claim.action === "create" &&
      !zone.some((record) => competes(planned, record)) &&
      !pulumi.runtime.isDryRun()
    ) {
      const confirmed = await this.reading(zoneId, planned.name, () =>
        this.reads.confirmedAt(zoneId, planned.name),
      );
      if (confirmed && confirmed.length > zone.length)
        claim = claimFor(planned, confirmed, policies.of(planned.purpose), publisher);
    }
    // A record this stack adopted before and someone edited since looks like one it may not adopt:
    // its claimed record's own diff writes it back (drift). For a new domain, it is refused here.
    if (claim.action === "refuse" && claim.notIdentical && publishedBefore) {
      pulumi.log.warn(
        `${component}: the ${planned.type} record at ${planned.name} is not the one to publish. If this stack adopted ` +
          "it before, someone edited it since, and `pulumi up` writes the service's content back (after `pulumi " +
          "refresh`); if not, `pulumi up` stops before writing it.",
        this.parent,
      );
      return { action: "undecided" };
    }
    if (claim.action === "refuse") {
      // Before the service answers, the return path's name is the installation's prefix, as known.
      const guess =
        planned.purpose === "return_path" && planned.content === undefined
          ? " (The service names its return path when it makes the domain; until then it is taken to be at the " +
            "installation's prefix: if yours is not Postal's `psrp`, set stack config emailDelivery:returnPathPrefix.)"
          : "";
      return { action: "refuse", problem: `${claim.problem}${guess}` };
    }
    if (claim.action === "merge") {
      const problem = await this.checkMerge(planned, claim, publishedBefore);
      if (problem)
        return {
          action: "refuse",
          problem: `cannot merge into the SPF record at ${planned.name}: ${problem}`,
        };
    }
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
   * Before the service has said which include it needs (a domain it does not have yet), the
   * installation's include (emailDelivery:spfInclude) is merged and counted whole; without it, the
   * user's record is what is known, and the include is counted as one lookup more (it may cost
   * more, nested includes and all): a record already at the limit fails here, before the domain is
   * made. Once the include is known, the merged record is counted whole, here and again just
   * before it is written.
   * Gives why the merge is refused, if it is.
   */
  private async checkMerge(
    planned: PlannedRecord,
    claim: Extract<Claim, { action: "merge" }>,
    publishedBefore: boolean,
  ): Promise<string | undefined> {
    // Before the service names its include, the installation's (stack config
    // emailDelivery:spfInclude) lets the merge be counted whole, nested includes and all.
    const known = this.config.spfInclude;
    const merged =
      claim.content ??
      (known
        ? mergeSpfIncludes(unquoteTxt(claim.record.content), [known])
        : unquoteTxt(claim.record.content));
    const { problem, warning, total } = await checkSpfLookups(merged, planned.name, this.config.dnsServer);
    if (problem) return problem;
    const component = this.component;
    if (claim.content === undefined && !known && total + 1 > SPF_LOOKUP_LIMIT) {
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
        return (
          `it already needs ${total} DNS lookups, and the service's include makes ${total + 1}, over the limit of ` +
          `${SPF_LOOKUP_LIMIT} that receivers evaluate (RFC 7208 §4.6.4: past it they return permerror, and every ` +
          "message fails SPF). Make room in the record (replace an `include:` by the addresses it stands for, drop a " +
          "mechanism nothing sends from). If the record already holds the service's include, take that include out: " +
          "this Domain adds it back, and the count then stays where it is."
        );
      }
    }
    if (warning) pulumi.log.warn(`${component}: ${warning}`, this.parent);
    return undefined;
  }
}
