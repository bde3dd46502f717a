import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord } from "../client";
import {
  ClaimPolicy,
  cloudflareContent,
  cloudflareName,
  cloudflarePriority,
  cloudflareRecordArgs,
  ExistingRecordPolicy,
  markedComment,
  PlannedRecord,
  Publisher,
  recordResourceName,
  ttlProblem,
  zoneIdProblem,
} from "../dns";
import { ClaimedDnsRecord } from "./claimed-dns-record";
import { ExistingRecordPolicies, ExistingRecordsArgs } from "./existing-record-policies";
import { ZoneSurvey } from "./zone-survey";

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
   * policy for all, or per record, where SPF also takes "merge" and MX "add". See the README,
   * "Existing records".
   * @default "fail"
   * @example { spf: "merge" }
   */
  existingRecords?: ExistingRecordPolicy | ExistingRecordsArgs;
}

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

/** Postal's return-path prefix: where the record goes, before the service has said so. */
const RETURN_PATH_PREFIX = "psrp";

/** Declares one record named `resourceName` for a record of `purpose` and `type`. */
type DeclareRecord = (
  resourceName: string,
  purpose: string,
  type: string,
  record: pulumi.Output<DnsRecord>,
) => pulumi.CustomResource;

/**
 * Checks the Cloudflare settings and looks at the zone before the domain exists: where the names
 * of its records are known from its name (SPF and MX at the name, DMARC, the return path at
 * Postal's `psrp.<name>`), a record the policies do not allow for fails here. Give the result
 * to the service domain's `dependsOn`, so that `pulumi preview` fails and `up` creates nothing.
 */
export function zonePreflight(
  name: string,
  settings: DomainCloudflareArgs,
  options: PublishOptions,
  parent: pulumi.Resource,
): { survey: ZoneSurvey; policies: ExistingRecordPolicies; ready: pulumi.Output<pulumi.Resource[]> } {
  const ttlError = ttlProblem(settings.ttl ?? 300);
  if (ttlError) throw new pulumi.ResourceError(`Domain ${name}: cloudflare.ttl ${ttlError}`, parent);
  // An id known as a plain value (stack config) is checked now; an output (a zone's `id`) is Cloudflare's own.
  const zoneProblem = typeof settings.zoneId === "string" ? zoneIdProblem(settings.zoneId) : undefined;
  if (zoneProblem) throw new pulumi.ResourceError(`Domain ${name}: cloudflare.zoneId ${zoneProblem}`, parent);
  let policies: ExistingRecordPolicies;
  try {
    policies = ExistingRecordPolicies.from(settings.existingRecords);
  } catch (error) {
    throw new pulumi.ResourceError(`Domain ${name}: ${(error as Error).message}`, parent);
  }
  const claimed = policies.claimed();
  if (settings.provider && claimed.length > 0) {
    throw new pulumi.ResourceError(
      `Domain ${name}: ${claimed.join(", ")} cannot be carried out with cloudflare.provider: this package writes ` +
        "those records itself, with the default Cloudflare provider's settings (stack config cloudflare:apiToken " +
        "and cloudflare:baseUrl, or CLOUDFLARE_API_TOKEN and CLOUDFLARE_BASE_URL). Leave out `provider`, or use " +
        '"fail" and sort out the existing records by hand.',
      parent,
    );
  }
  const survey = new ZoneSurvey(settings.provider, parent);
  const publisher = thisStack();
  // An adopted domain that exists publishes nothing (the service gave its records to whoever made
  // it): what the zone holds is no reason to stop. Its records, if the service answers any, are
  // each checked once known (recordDeclarer).
  if (!options.upFront) return { survey, policies, ready: pulumi.output([]) };
  const ready = pulumi
    .all([settings.zoneId, options.domainName])
    .apply(async ([zoneId, domainName]): Promise<pulumi.Resource[]> => {
      const planned: PlannedRecord[] = [
        { purpose: "spf", name: domainName, type: "TXT" },
        { purpose: "return_path", name: `${RETURN_PATH_PREFIX}.${domainName}`, type: "CNAME" },
        ...(options.mx ? [{ purpose: "mx", name: domainName, type: "MX" } as const] : []),
        ...(options.dmarc !== undefined
          ? [
              {
                purpose: "dmarc",
                name: dmarcName(domainName),
                type: "TXT",
                content: quoted(options.dmarc),
              } as const,
            ]
          : []),
      ];
      for (const record of planned) await survey.check(name, zoneId, record, policies, publisher);
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
  preflight: ReturnType<typeof zonePreflight>,
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
              name: dmarcName(domainName),
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

/** Declares records with what every record of the domain shares, each as its policy says. */
function recordDeclarer(
  name: string,
  settings: DomainCloudflareArgs,
  { survey, policies }: ReturnType<typeof zonePreflight>,
  parent: pulumi.Resource,
): DeclareRecord {
  const ttl = settings.ttl ?? 300;
  const publisher = thisStack();
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
        },
        { parent },
      );
    }
    // Checked against the zone once its name and content are known (at preview for a domain that
    // exists; at up for a new one, whose names the preflight checked as far as they were known).
    const checked = pulumi.all([settings.zoneId, record]).apply(async ([zoneId, known]) => {
      const planned = { purpose, name: cloudflareName(known), type, content: cloudflareContent(known) };
      await survey.check(name, zoneId, planned as PlannedRecord, policies, publisher);
      return known;
    });
    // Deleted first when replaced: Cloudflare refuses a second record identical to one that exists.
    return new cloudflare.DnsRecord(
      resourceName,
      cloudflareRecordArgs(checked, { zoneId: settings.zoneId, ttl, comment }, type),
      { parent, provider: settings.provider, deleteBeforeReplace: true },
    );
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

/** This stack, whose ownership mark its records carry. */
function thisStack(): Publisher {
  return { project: pulumi.getProject(), stack: pulumi.getStack() };
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

function dmarcName(domainName: string): string {
  return `_dmarc.${domainName}`;
}

function quoted(content: string): string {
  return cloudflareContent({ purpose: "dmarc", type: "TXT", name: "", content });
}
