import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord } from "../client";
import { cloudflareContent, dmarcRecordName, PlannedRecord, recordResourceName } from "../dns";
import { ttlProblem, zoneIdProblem } from "../inputs";
import { claimedRecordsProblem, ExistingRecordPolicies } from "./existing-record-policies";
import type { DomainCloudflareArgs } from "./domain-cloudflare-args";
import { DeclareRecord, recordDeclarer, thisStack, ZonePreflight } from "./record-declarer";
import { reportTogether, ZoneConflict } from "./zone-conflicts";
import { ZoneSurvey } from "./zone-survey";
import { DEFAULT_RECORD_TTL } from "./domain-settings";

/** What the `Domain` publishes besides the service's own records, and what it leaves out. */
export interface PublishOptions {
  /** The domain's name (for the names known before the service answers). */
  domainName: pulumi.Input<string>;
  /** Declare SPF, DKIM and return path at once (false for an adopted domain, whose records may be unknown). */
  upFront: boolean;
  /** Publish the service's MX records. */
  mx: boolean;
  /** The DMARC record's content (unquoted), to publish at `_dmarc.<name>`. */
  dmarc?: string;
}

/** The records published for a domain, and what to give `dependsOn` to wait for all of them. */
export interface PublishedRecords {
  records: pulumi.Output<pulumi.CustomResource[]>;
  /**
   * The records the service checks, declared at once, and an output of the others: Pulumi gathers
   * dependencies through outputs and arrays, so previews show the dependency on every record.
   */
  dependsOn: pulumi.Input<pulumi.Resource>[];
}

/** Records every service publishes exactly once, known by purpose before the domain exists. */
const SINGLE_RECORDS = [
  { purpose: "spf", type: "TXT" },
  { purpose: "dkim", type: "TXT" },
  { purpose: "return_path", type: "CNAME" },
] as const;

/**
 * Where the return path goes before the service has said so: Postal's prefix (`psrp`, its
 * `dns.custom_return_path_prefix`), or the one stack config `emailDelivery:returnPathPrefix` names
 * for an installation that changed it.
 */
function returnPathPrefix(parent: pulumi.Resource): string {
  const prefix = pulumi.runtime.getConfig("emailDelivery:returnPathPrefix") ?? "psrp";
  if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(prefix)) {
    throw new pulumi.ResourceError(
      `stack config emailDelivery:returnPathPrefix must be one DNS label in lowercase (your installation's ` +
        `dns.custom_return_path_prefix, e.g. "psrp"), not ${JSON.stringify(prefix)}`,
      parent,
    );
  }
  return prefix;
}

/**
 * Checks the Cloudflare settings and looks at the zone before the domain exists: where the names
 * of its records are known from its name (SPF and MX at the name, DMARC, the return path at the
 * installation's prefix, `psrp.<name>` by default), the records the policies do not allow for fail
 * here, all of them in one error (zone-conflicts.ts). Give `ready` to the service domain's
 * `dependsOn` (and the records'), so that `pulumi preview` fails and `up` creates nothing.
 */
export function zonePreflight(
  name: string,
  settings: DomainCloudflareArgs,
  options: PublishOptions,
  parent: pulumi.Resource,
): ZonePreflight {
  const ttlError = ttlProblem(settings.ttl ?? DEFAULT_RECORD_TTL);
  if (ttlError) throw new pulumi.ResourceError(`Domain ${name}: cloudflare.ttl ${ttlError}`, parent);
  // An id known as a plain value (stack config) is checked now; an output (a zone's `id`) is Cloudflare's own.
  const zoneProblem =
    settings.zoneId === undefined || settings.zoneId === null
      ? "is required: the id of the Cloudflare zone that holds the domain (Cloudflare dashboard → the zone → Overview → Zone ID)"
      : typeof settings.zoneId === "string"
        ? zoneIdProblem(settings.zoneId)
        : undefined;
  if (zoneProblem) throw new pulumi.ResourceError(`Domain ${name}: cloudflare.zoneId ${zoneProblem}`, parent);
  let policies: ExistingRecordPolicies;
  try {
    policies = ExistingRecordPolicies.from(settings.existingRecords);
  } catch (error) {
    throw new pulumi.ResourceError(`Domain ${name}: ${(error as Error).message}`, parent);
  }
  const claimedProblem = claimedRecordsProblem(
    policies.claimed(),
    settings.provider ?? parent.getProvider("cloudflare:index/dnsRecord:DnsRecord"),
    pulumi.runtime.getConfig("cloudflare:apiToken") ?? process.env.CLOUDFLARE_API_TOKEN,
  );
  if (claimedProblem) throw new pulumi.ResourceError(`Domain ${name}: ${claimedProblem}`, parent);
  const survey = new ZoneSurvey(settings.provider, parent);
  const publisher = thisStack(parent);
  const prefix = returnPathPrefix(parent);
  // Counted before any question about the zone is asked, so that the zone is read once for all.
  pulumi
    .all([settings.zoneId, options.domainName])
    .apply(([zoneId, domainName]) => survey.register(zoneId, domainName));
  // An adopted domain that exists publishes nothing (the service gave its records to whoever made
  // it): what the zone holds is no reason to stop. Its records, if the service answers any, are
  // each checked once known (recordDeclarer).
  if (!options.upFront) return { survey, policies, ready: pulumi.output([]) };
  const ready = pulumi
    .all([settings.zoneId, options.domainName])
    .apply(async ([zoneId, domainName]): Promise<pulumi.Resource[]> => {
      const planned: PlannedRecord[] = [
        { purpose: "spf", name: domainName, type: "TXT" },
        { purpose: "return_path", name: `${prefix}.${domainName}`, type: "CNAME" },
        ...(options.mx ? [{ purpose: "mx", name: domainName, type: "MX" } as const] : []),
        ...(options.dmarc !== undefined
          ? [
              {
                purpose: "dmarc",
                name: dmarcRecordName(domainName),
                type: "TXT",
                content: cloudflareContent({
                  purpose: "dmarc",
                  type: "TXT",
                  name: "",
                  content: options.dmarc,
                }),
              } as const,
            ]
          : []),
      ];
      // Every record is looked at, and every conflict named at once: one preview, not one per conflict.
      await reportTogether(name, parent, async () => {
        const before = await survey.publishedBefore(
          name,
          zoneId,
          domainName,
          `${prefix}.${domainName}`,
          publisher,
        );
        const conflicts: ZoneConflict[] = [];
        for (const record of planned) {
          const claim = await survey.check(name, zoneId, record, policies, publisher, before);
          if (claim.action === "refuse")
            conflicts.push({ planned: record, policy: policies.of(record.purpose), problem: claim.problem });
        }
        return conflicts;
      });
      return [];
    });
  return { survey, policies, ready };
}

/**
 * One record per record the service asks for (and DMARC when asked for), child of `parent` (the
 * `Domain` component `name`), in three steps:
 *
 * | step              | records                                | declared                            |
 * | ----------------- | -------------------------------------- | ----------------------------------- |
 * | `recordDeclarer`  | how each is declared, by its policy    | zone, TTL, marked comment           |
 * | `declareSingles`  | SPF, DKIM, return path (`upFront`), DMARC | at once, so a preview shows them |
 * | `declareTheRest`  | one MX per mail host, other purposes   | once the service has answered       |
 *
 * A record whose policy is "fail" is a `cloudflare.DnsRecord`, checked against the zone once its
 * name is known; any other policy makes it a `ClaimedDnsRecord`, which acts on the zone itself.
 */
export function publishRecords(
  name: string,
  dnsRecords: pulumi.Output<DnsRecord[]>,
  settings: DomainCloudflareArgs,
  preflight: ZonePreflight,
  options: PublishOptions,
  parent: pulumi.Resource,
): PublishedRecords {
  const declare = recordDeclarer(name, settings, preflight, parent);
  const singles = options.upFront ? declareSingles(name, dnsRecords, declare) : [];
  const dmarc =
    options.dmarc === undefined
      ? []
      : [
          declare(
            recordResourceName(name, "dmarc"),
            "dmarc",
            "TXT",
            pulumi.output(options.domainName).apply((domainName) => ({
              purpose: "dmarc",
              type: "TXT",
              name: dmarcRecordName(domainName),
              content: options.dmarc!,
            })),
          ),
        ];
  const skipped = [
    ...(options.upFront ? SINGLE_RECORDS.map((r) => r.purpose) : []),
    ...(options.mx ? [] : ["mx"]),
  ];
  const rest = declareTheRest(name, dnsRecords, skipped, declare, parent);
  return {
    records: rest.apply((later) => [...singles, ...dmarc, ...later]),
    // DMARC is not checked by the service: nothing waits for it.
    dependsOn: [...singles, rest as unknown as pulumi.Input<pulumi.Resource>],
  };
}

/** SPF, DKIM and return path, declared before the service has answered (names `<name>-spf` …). */
function declareSingles(
  name: string,
  dnsRecords: pulumi.Output<DnsRecord[]>,
  declare: DeclareRecord,
): pulumi.CustomResource[] {
  return SINGLE_RECORDS.map(({ purpose, type }) =>
    declare(
      recordResourceName(name, purpose),
      purpose,
      type,
      dnsRecords.apply((records) => {
        const found = records.find((candidate) => candidate.purpose === purpose);
        if (found) return found;
        throw new Error(
          `Domain ${name}: no ${purpose} record is known for this domain. The service returns a domain's records ` +
            "only when it creates the domain, so an adopted domain has none: keep `adopt: true`, or delete the " +
            "domain on the service so the stack creates it again.",
        );
      }),
    ),
  );
}

/**
 * The records of purposes not in `skipped`, once the service has answered: named by purpose and
 * ordered by content so names stay stable (`<name>-mx-0`, `<name>-mx-1` …).
 */
function declareTheRest(
  name: string,
  dnsRecords: pulumi.Output<DnsRecord[]>,
  skipped: readonly string[],
  declare: DeclareRecord,
  parent: pulumi.Resource,
): pulumi.Output<pulumi.CustomResource[]> {
  return dnsRecords.apply((records) => {
    if (records.length === 0) {
      pulumi.log.warn(
        `${name}: the domain was adopted, so its DNS records are not known and none are published`,
        parent,
      );
    }
    const byPurpose = new Map<string, DnsRecord[]>();
    for (const record of records.filter((candidate) => !skipped.includes(candidate.purpose))) {
      byPurpose.set(record.purpose, [...(byPurpose.get(record.purpose) ?? []), record]);
    }
    return [...byPurpose].flatMap(([purpose, group]) =>
      group
        .sort((a, b) => a.content.localeCompare(b.content))
        .map((record, index) =>
          declare(
            // MX records are always numbered, so a second mail host does not rename the first.
            recordResourceName(name, purpose, purpose === "mx" || group.length > 1 ? index : undefined),
            purpose,
            record.type.toUpperCase(),
            pulumi.output(record),
          ),
        ),
    );
  });
}
