import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord } from "../../client";
import {
  cloudflareContent,
  cloudflareName,
  cloudflarePriority,
  markedComment,
  PlannedRecord,
} from "../../dns";
import type { ClaimPolicy } from "../../dns/existing-records";
import { isRecordPurpose } from "../../dns/zone-records";
import { ttlProblem, zoneIdProblem } from "../../inputs";
import { ClaimedDnsRecord } from "../claimed-dns-record";
import { TYPE_TOKENS } from "../type-tokens";
import { DEFAULT_RECORD_TTL, DomainCloudflareArgs } from "./domain-cloudflare-args";
import {
  dmarcRecord,
  DomainRecord,
  laterRecords,
  PublishedType,
  PublishOptions,
  recordsKnownUpFront,
  SINGLE_RECORDS,
  singleRecords,
} from "./domain-records";
import { claimedRecordsProblem, ExistingRecordPolicies } from "./existing-record-policies";
import { publishingConfig, PublishingConfig } from "./stack-config";
import { reportTogether, ZoneConflict } from "./zone-conflicts";
import { ZoneSurvey } from "./zone-survey";

export type { PublishOptions } from "./domain-records";

/** The records published for a domain, and what to give `dependsOn` to wait for all of them. */
export interface PublishedRecords {
  records: pulumi.Output<pulumi.CustomResource[]>;
  /**
   * Every record the service checks (not DMARC: nothing waits for it), as an output built from the
   * records declared at once (through their URNs) and the others: Pulumi gathers dependencies from
   * an output's resources too, so a preview, where the others are unknown, shows the first.
   */
  dependsOn: pulumi.Output<pulumi.Resource[]>;
}

/**
 * How one `Domain` (the component `component`, `parent`) publishes its records in Cloudflare, in
 * the order a `Domain` calls it:
 *
 * 1. **`new DomainPublisher`** checks the settings (`cloudflare.*`, the stack config publishing
 *    reads) and counts the domain among the run's on its zone, so the zone is read once for all.
 * 2. **`checkZone()`**, before the domain exists: where the names of its records are known from its
 *    name, the records the policies do not allow for fail, all of them in one error
 *    (zone-conflicts.ts). Its `ready` goes to the service domain's `dependsOn` (and the records'),
 *    so `pulumi preview` fails and `up` makes nothing.
 * 3. **`publish(answer)`**, with the service's records: one `ClaimedDnsRecord` per record, which
 *    carries out its policy on the zone itself (see `declare`), checked against the zone once its
 *    name is known. Every record carries the stack's ownership mark.
 */
export class DomainPublisher {
  /** Resolves once every zone check of the Domain has passed (`checkZone`). */
  private ready: pulumi.Output<pulumi.Resource[]> = pulumi.output([]);
  private readonly policies: ExistingRecordPolicies;
  private readonly config: PublishingConfig;
  private readonly survey: ZoneSurvey;
  /** Whether this package writes the Domain's records itself, with the default provider's token. */
  private readonly writesItself: boolean;

  constructor(
    private readonly component: string,
    private readonly settings: DomainCloudflareArgs,
    private readonly options: PublishOptions,
    private readonly parent: pulumi.Resource,
  ) {
    ({ policies: this.policies, writesItself: this.writesItself } = this.checkSettings());
    this.config = publishingConfig(parent);
    this.survey = new ZoneSurvey(component, this.policies, this.config, settings.provider, parent);
    pulumi
      .all([settings.zoneId, options.domainName])
      .apply(([zoneId, domainName]) => this.survey.register(zoneId, domainName));
  }

  /**
   * Looks at the zone where the domain's record names are known before it exists. An adopted
   * domain that exists publishes nothing (the service gave its records to whoever made it): what
   * the zone holds is no reason to stop; its records, if the service answers any, are each checked
   * once known.
   */
  checkZone(): pulumi.Output<pulumi.Resource[]> {
    if (!this.options.upFront) return this.ready;
    this.ready = pulumi
      .all([this.settings.zoneId, this.options.domainName])
      .apply(async ([zoneId, domainName]): Promise<pulumi.Resource[]> => {
        const planned = recordsKnownUpFront(domainName, this.config.returnPathPrefix, this.options);
        // Every record is looked at, and every conflict named at once: one preview, not one per conflict.
        await reportTogether(this.component, this.parent, async () => {
          const publishedBefore = await this.survey.publishedBefore(zoneId, domainName);
          const conflicts: ZoneConflict[] = [];
          for (const record of planned) {
            const claim = await this.survey.check(zoneId, record, { publishedBefore });
            if (claim.action === "refuse") conflicts.push(this.conflict(record, claim.problem));
          }
          return conflicts;
        });
        return [];
      });
    return this.ready;
  }

  /**
   * One child per record the service asks for (`answer`), and DMARC when asked for: SPF, DKIM and
   * return path at once (with `upFront`), so a preview shows them; the others (one MX per mail
   * host, purposes the service adds) once it has answered.
   */
  publish(answer: pulumi.Output<DnsRecord[]>): PublishedRecords {
    const { upFront, mx, dmarc, domainName } = this.options;
    const singles = (upFront ? singleRecords(this.component, answer) : []).map((record) =>
      this.declare(record),
    );
    // DMARC is not checked by the service: nothing waits for it.
    const dmarcRecords =
      dmarc === undefined ? [] : [this.declare(dmarcRecord(this.component, domainName, dmarc))];
    const skipped = [...(upFront ? SINGLE_RECORDS.map((r) => r.purpose) : []), ...(mx ? [] : ["mx"])];
    const later = answer.apply((records) => {
      if (records.length === 0) {
        pulumi.log.warn(
          `${this.component}: the domain was adopted, so its DNS records are not known and none are published`,
          this.parent,
        );
      }
      return laterRecords(this.component, records, skipped).map(({ resourceName, record }) =>
        this.declare({
          resourceName,
          purpose: record.purpose,
          type: record.type.toUpperCase(),
          fields: pulumi.output(record),
        }),
      );
    });
    return {
      records: later.apply((rest) => [...singles, ...dmarcRecords, ...rest]),
      // Through the singles' URNs too, so that a preview, where the rest is unknown, shows them.
      dependsOn: pulumi
        .all([later, pulumi.all(singles.map((record) => record.urn))])
        .apply(([rest]) => [...singles, ...rest]),
    };
  }

  /**
   * The `cloudflare.*` settings checked, at preview; gives the existing-record policies, and
   * whether the package can write the records itself (no provider of the program's, a token).
   */
  private checkSettings(): { policies: ExistingRecordPolicies; writesItself: boolean } {
    const { component, settings, parent } = this;
    const fail = (message: string) => new pulumi.ResourceError(`Domain ${component}: ${message}`, parent);
    const ttlError = ttlProblem(settings.ttl ?? DEFAULT_RECORD_TTL);
    if (ttlError) throw fail(`cloudflare.ttl ${ttlError}`);
    // An id known as a plain value (stack config) is checked now; an output (a zone's `id`) is Cloudflare's own.
    const zoneProblem =
      settings.zoneId === undefined || settings.zoneId === null
        ? "is required: the id of the Cloudflare zone that holds the domain (Cloudflare dashboard → the zone → Overview → Zone ID)"
        : typeof settings.zoneId === "string"
          ? zoneIdProblem(settings.zoneId)
          : undefined;
    if (zoneProblem) throw fail(`cloudflare.zoneId ${zoneProblem}`);
    let policies: ExistingRecordPolicies;
    try {
      policies = ExistingRecordPolicies.from(settings.existingRecords);
    } catch (error) {
      throw fail((error as Error).message);
    }
    const provider = settings.provider ?? parent.getProvider(TYPE_TOKENS.DnsRecord);
    const token = pulumi.runtime.getConfig("cloudflare:apiToken") ?? process.env.CLOUDFLARE_API_TOKEN;
    const claimedProblem = claimedRecordsProblem(policies.claimed(), provider, token);
    if (claimedProblem) throw fail(claimedProblem);
    return { policies, writesItself: provider === undefined && Boolean(token) };
  }

  /**
   * One record, as its policy says: a `ClaimedDnsRecord` (written in batches), aliased under "fail"
   * from the `cloudflare.DnsRecord` an earlier version declared, so it is taken on, never made
   * again. A `cloudflare.DnsRecord` where the package cannot write itself (a Cloudflare provider of
   * the program's, no API token) or for a type only the Cloudflare provider holds.
   */
  private declare(record: DomainRecord): pulumi.CustomResource {
    const policy = this.policies.of(record.purpose);
    if (policy !== "fail") return this.claimedRecord(record, policy);
    if (!this.writesItself || !isPublishedType(record.type) || !isRecordPurpose(record.purpose))
      return this.cloudflareRecord(record);
    return this.claimedRecord(record, "fail", {
      dependsOn: this.zoneChecked(record, { writing: false }),
      aliases: [{ type: TYPE_TOKENS.DnsRecord }],
    });
  }

  /** A `cloudflare.DnsRecord`, written by the Cloudflare provider (see `declare`). */
  private cloudflareRecord(record: DomainRecord): cloudflare.DnsRecord {
    const { resourceName, purpose, type, fields } = record;
    // Deleted first when replaced: Cloudflare refuses a second record identical to one that exists.
    return new cloudflare.DnsRecord(
      resourceName,
      { ...this.recordArgs(purpose, type, fields), type, proxied: false },
      {
        parent: this.parent,
        provider: this.settings.provider,
        deleteBeforeReplace: true,
        dependsOn: this.zoneChecked(record, { writing: true }),
      },
    );
  }

  /**
   * The record checked against the zone once its name and content are known (at preview for a
   * domain that exists; at up for a new one), after `checkZone`: when that failed, this fails with
   * the same error (reported once). A dependency, not an input: an input's failure would be
   * reported again, as "error serializing property …". `writing`: confirmed at the zone as it is
   * now (a `cloudflare.DnsRecord` writes unchecked; a `ClaimedDnsRecord` checks before it writes).
   */
  private zoneChecked(
    { purpose, type, fields }: DomainRecord,
    { writing }: { writing: boolean },
  ): pulumi.Output<pulumi.Resource[]> {
    return pulumi
      .all([this.settings.zoneId, fields, this.ready])
      .apply(async ([zoneId, known]): Promise<pulumi.Resource[]> => {
        const planned = { ...plannedFrom(known, type), purpose };
        await reportTogether(this.component, this.parent, async () => {
          const claim = await this.survey.check(zoneId, planned, { writing });
          return claim.action === "refuse" ? [this.conflict(planned, claim.problem)] : [];
        });
        return [];
      });
  }

  /** A `ClaimedDnsRecord`, which carries out `policy` on the zone itself. */
  private claimedRecord(
    { resourceName, purpose, type, fields }: DomainRecord,
    policy: ClaimPolicy,
    options: pulumi.CustomResourceOptions = {},
  ): ClaimedDnsRecord {
    // Only the purposes a policy names get one other than "fail"; their types are the service's.
    if (!isPublishedType(type) || !isRecordPurpose(purpose)) {
      throw new pulumi.ResourceError(
        `Domain ${this.component}: the service gives its ${purpose} record the type ${type}, which ` +
          `cloudflare.existingRecords cannot carry out (TXT, CNAME and MX only): use "fail" for it`,
        this.parent,
      );
    }
    const { publisher } = this.config;
    return new ClaimedDnsRecord(
      resourceName,
      {
        ...this.recordArgs(purpose, type, fields),
        purpose,
        type,
        policy,
        owner: `${publisher.project}/${publisher.stack}`,
        // Only when there are any: a stack never renamed keeps the inputs it always had.
        ...(publisher.formerStacks?.length ? { formerStacks: [...publisher.formerStacks] } : {}),
      },
      { ...options, parent: this.parent },
    );
  }

  /**
   * What every record of the Domain is declared with, either kind: the zone, its fields as
   * Cloudflare stores them, the TTL, and the comment: the ownership mark, then the comment given
   * ("" for the mark alone) or `email <purpose>`.
   */
  private recordArgs(purpose: string, type: string, fields: pulumi.Output<DnsRecord>) {
    const { project, stack } = this.config.publisher;
    const description = this.settings.comment ?? `email ${purpose.replace(/_/g, " ")}`;
    return {
      zoneId: this.settings.zoneId,
      name: fields.apply(cloudflareName),
      content: fields.apply(cloudflareContent),
      ...(type === "MX" ? { priority: fields.apply(cloudflarePriority) } : {}),
      ttl: this.settings.ttl ?? DEFAULT_RECORD_TTL,
      comment: pulumi.output(description).apply((text) => markedComment(project, stack, text)),
    };
  }

  private conflict(planned: PlannedRecord, problem: string): ZoneConflict {
    return { planned, policy: this.policies.of(planned.purpose), problem };
  }
}

/** The record as Cloudflare will hold it, for the zone checks. */
function plannedFrom(known: DnsRecord, type: string): Omit<PlannedRecord, "purpose"> {
  return {
    name: cloudflareName(known),
    type,
    content: cloudflareContent(known),
    ...(type === "MX" ? { priority: cloudflarePriority(known) } : {}),
  };
}

function isPublishedType(type: string): type is PublishedType {
  return type === "TXT" || type === "CNAME" || type === "MX";
}
