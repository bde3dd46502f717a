/**
 * How the `Domain` declares one DNS record: as its existing-record policy says, a
 * `cloudflare.DnsRecord` checked against the zone once its name is known ("fail"), or a
 * `ClaimedDnsRecord` that acts on the zone itself (any other policy); every record carries the
 * stack's ownership mark.
 */
import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord } from "../client";
import {
  ClaimPolicy,
  cloudflareContent,
  cloudflareName,
  cloudflarePriority,
  markedComment,
  PlannedRecord,
  Publisher,
} from "../dns";
import { formerStackNamesProblem } from "../inputs";
import { ClaimedDnsRecord } from "./claimed-dns-record";
import type { DomainCloudflareArgs } from "./domain-cloudflare-args";
import type { ExistingRecordPolicies } from "./existing-record-policies";
import { reportTogether } from "./zone-conflicts";
import type { ZoneSurvey } from "./zone-survey";
import { DEFAULT_RECORD_TTL } from "./domain-settings";

/** What the zone preflight (`zonePreflight`) leaves for the records it cleared to be declared. */
export interface ZonePreflight {
  survey: ZoneSurvey;
  policies: ExistingRecordPolicies;
  /** Resolves once every zone check of the Domain has passed: the records' and the domain's `dependsOn`. */
  ready: pulumi.Output<pulumi.Resource[]>;
}

/** Declares one record named `resourceName` for a record of `purpose` and `type`. */
export type DeclareRecord = (
  resourceName: string,
  purpose: string,
  type: string,
  record: pulumi.Output<DnsRecord>,
) => pulumi.CustomResource;

/** Declares records with what every record of the domain shares, each as its policy says. */
export function recordDeclarer(
  name: string,
  settings: DomainCloudflareArgs,
  { survey, policies, ready }: ZonePreflight,
  parent: pulumi.Resource,
): DeclareRecord {
  const ttl = settings.ttl ?? DEFAULT_RECORD_TTL;
  const publisher = thisStack(parent);
  return (resourceName, purpose, type, record) => {
    const comment = recordComment(settings, purpose, publisher);
    const policy = policies.of(purpose);
    if (policy !== "fail") {
      return new ClaimedDnsRecord(
        resourceName,
        {
          zoneId: settings.zoneId,
          purpose: purpose as PlannedRecord["purpose"],
          name: record.apply(cloudflareName),
          type: type as "TXT" | "CNAME" | "MX",
          content: record.apply(cloudflareContent),
          ...(type === "MX" ? { priority: record.apply(cloudflarePriority) } : {}),
          ttl,
          comment,
          policy: policy as ClaimPolicy,
          owner: `${publisher.project}/${publisher.stack}`,
          // Only when there are any: a stack never renamed keeps the inputs it always had.
          ...(publisher.formerStacks?.length ? { formerStacks: [...publisher.formerStacks] } : {}),
        },
        { parent },
      );
    }
    // Checked against the zone once its name and content are known (at preview for a domain that
    // exists; at up for a new one, whose names the preflight checked as far as they were known),
    // after the preflight: when that failed, this fails with the same error (reported once). The
    // check is a dependency, not an input: an input's failure would be reported again, as "error
    // serializing property …".
    const checked = pulumi
      .all([settings.zoneId, record, ready])
      .apply(async ([zoneId, known]): Promise<pulumi.Resource[]> => {
        const planned = {
          purpose,
          name: cloudflareName(known),
          type,
          content: cloudflareContent(known),
          ...(type === "MX" ? { priority: cloudflarePriority(known) } : {}),
        } as PlannedRecord;
        await reportTogether(name, parent, async () => {
          const claim = await survey.check(name, zoneId, planned, policies, publisher, false, true);
          return claim.action === "refuse" ? [{ planned, policy, problem: claim.problem }] : [];
        });
        return [];
      });
    // Deleted first when replaced: Cloudflare refuses a second record identical to one that exists.
    return new cloudflare.DnsRecord(
      resourceName,
      {
        zoneId: settings.zoneId,
        name: record.apply(cloudflareName),
        type,
        content: record.apply(cloudflareContent),
        ttl,
        proxied: false,
        ...(type === "MX" ? { priority: record.apply(cloudflarePriority) } : {}),
        comment,
      },
      { parent, provider: settings.provider, deleteBeforeReplace: true, dependsOn: checked },
    );
  };
}

/**
 * This stack, whose ownership mark its records carry, and the names it had before `pulumi stack
 * rename` (stack config `emailDelivery:formerStackNames`): records marked with those are its own.
 */
export function thisStack(parent: pulumi.Resource): Publisher {
  const former = new pulumi.Config("emailDelivery").getObject<unknown>("formerStackNames") ?? [];
  const problem = formerStackNamesProblem(former);
  if (problem)
    throw new pulumi.ResourceError(`stack config emailDelivery:formerStackNames ${problem}`, parent);
  return { project: pulumi.getProject(), stack: pulumi.getStack(), formerStacks: former as string[] };
}

/** The ownership mark, then the comment given ("" for the mark alone) or `email <purpose>`. */
function recordComment(
  settings: DomainCloudflareArgs,
  purpose: string,
  publisher: Publisher,
): pulumi.Output<string> {
  const description = settings.comment ?? `email ${purpose.replace(/_/g, " ")}`;
  return pulumi.output(description).apply((text) => markedComment(publisher.project, publisher.stack, text));
}
