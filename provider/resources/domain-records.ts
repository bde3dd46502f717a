import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord } from "../client";
import { cloudflareRecordArgs, recordResourceName, ttlProblem, zoneIdProblem } from "../dns";

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
   * @default the default Cloudflare provider
   */
  provider?: cloudflare.Provider;
  /**
   * Comment on every record; `""` for none. Cloudflare allows 100 characters on free plans (the
   * default is cut to fit).
   * @default "pulumi <project>/<stack>: email <purpose>"
   * @example "managed by the mail stack"
   */
  comment?: pulumi.Input<string>;
}

/** The records published for a domain, and what to give `dependsOn` to wait for all of them. */
export interface PublishedRecords {
  records: pulumi.Output<cloudflare.DnsRecord[]>;
  /**
   * The records declared at once, and an output of the others: Pulumi gathers dependencies
   * through outputs and arrays, so previews show the dependency on every record.
   */
  dependsOn: pulumi.Input<pulumi.Resource>[];
}

/** Records every service publishes exactly once, known by purpose before the domain exists. */
const SINGLE_RECORDS = [
  { purpose: "spf", type: "TXT" },
  { purpose: "dkim", type: "TXT" },
  { purpose: "return_path", type: "CNAME" },
] as const;

/** Cloudflare's limit for comments on free plans. */
const MAX_COMMENT_LENGTH = 100;

/** Declares one `cloudflare.DnsRecord` named `resourceName` for a record of `purpose` and `type`. */
type DeclareRecord = (
  resourceName: string,
  purpose: string,
  type: string,
  record: pulumi.Output<DnsRecord>,
) => cloudflare.DnsRecord;

/**
 * One `cloudflare.DnsRecord` per record the service asks for, child of `parent` (the `Domain`
 * component `name`), in three steps:
 *
 * | step              | records                              | declared                            |
 * | ----------------- | ------------------------------------ | ----------------------------------- |
 * | `recordDeclarer`  | how each is declared                 | zone, TTL, comment, provider        |
 * | `declareSingles`  | SPF, DKIM, return path (`upFront`)   | at once, so a preview shows them    |
 * | `declareTheRest`  | one MX per mail host, other purposes | once the service has answered       |
 *
 * Without `upFront` (an adopted domain, whose records may be unknown) every record is declared
 * in the last step.
 */
export function publishRecords(
  name: string,
  dnsRecords: pulumi.Output<DnsRecord[]>,
  settings: DomainCloudflareArgs,
  parent: pulumi.Resource,
  { upFront }: { upFront: boolean },
): PublishedRecords {
  const declare = recordDeclarer(name, settings, parent);
  const singles = upFront ? declareSingles(name, dnsRecords, declare) : [];
  const rest = declareTheRest(
    name,
    dnsRecords,
    upFront ? SINGLE_RECORDS.map((r) => r.purpose) : [],
    declare,
    parent,
  );
  return {
    records: rest.apply((later) => [...singles, ...later]),
    dependsOn: [...singles, rest as unknown as pulumi.Input<pulumi.Resource>],
  };
}

/** Checks the TTL, then declares records with what every record of the domain shares. */
function recordDeclarer(
  name: string,
  settings: DomainCloudflareArgs,
  parent: pulumi.Resource,
): DeclareRecord {
  const ttl = settings.ttl ?? 300;
  const problem = ttlProblem(ttl);
  if (problem) throw new pulumi.ResourceError(`Domain ${name}: cloudflare.ttl ${problem}`, parent);
  // An id known as a plain value (stack config) is checked now; an output (a zone's `id`) is Cloudflare's own.
  const zoneProblem = typeof settings.zoneId === "string" ? zoneIdProblem(settings.zoneId) : undefined;
  if (zoneProblem) throw new pulumi.ResourceError(`Domain ${name}: cloudflare.zoneId ${zoneProblem}`, parent);
  // Deleted first when replaced: Cloudflare refuses a second record identical to one that exists.
  const options: pulumi.CustomResourceOptions = {
    parent,
    provider: settings.provider,
    deleteBeforeReplace: true,
  };
  return (resourceName, purpose, type, record) =>
    new cloudflare.DnsRecord(
      resourceName,
      cloudflareRecordArgs(
        record,
        { zoneId: settings.zoneId, ttl, comment: recordComment(settings, purpose) },
        type,
      ),
      options,
    );
}

/** SPF, DKIM and return path, declared before the service has answered (names `<name>-spf` …). */
function declareSingles(
  name: string,
  dnsRecords: pulumi.Output<DnsRecord[]>,
  declare: DeclareRecord,
): cloudflare.DnsRecord[] {
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
 * The records of purposes not in `declared`, once the service has answered: named by purpose and
 * ordered by content so names stay stable (`<name>-mx-0`, `<name>-mx-1` …).
 */
function declareTheRest(
  name: string,
  dnsRecords: pulumi.Output<DnsRecord[]>,
  declared: readonly string[],
  declare: DeclareRecord,
  parent: pulumi.Resource,
): pulumi.Output<cloudflare.DnsRecord[]> {
  return dnsRecords.apply((records) => {
    if (records.length === 0) {
      pulumi.log.warn(
        `${name}: the domain was adopted, so its DNS records are not known and none are published`,
        parent,
      );
    }
    const byPurpose = new Map<string, DnsRecord[]>();
    for (const record of records.filter((candidate) => !declared.includes(candidate.purpose))) {
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

/** The comment given, where "" means none (Cloudflare stores it as none); else one naming the stack. */
function recordComment(settings: DomainCloudflareArgs, purpose: string): pulumi.Input<string> {
  if (settings.comment !== undefined) {
    return pulumi.output(settings.comment).apply((comment) => comment || undefined) as pulumi.Output<string>;
  }
  const comment = `pulumi ${pulumi.getProject()}/${pulumi.getStack()}: email ${purpose.replace(/_/g, " ")}`;
  return comment.length <= MAX_COMMENT_LENGTH ? comment : `${comment.slice(0, MAX_COMMENT_LENGTH - 1)}…`;
}
