import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord } from "../client";
import { cloudflareContent, cloudflareName, recordResourceName, ttlProblem } from "../dns";
import type { CheckName } from "../inputs";
import { DomainVerification } from "./domain-verification";
import { ServiceDomain } from "./service-domain";

export interface DomainCloudflareArgs {
  /** The Cloudflare zone that holds the domain (the domain itself or a parent of it). */
  zoneId: pulumi.Input<string>;
  /**
   * TTL of the records: 1 (automatic) or 60 to 86400 seconds.
   * @default 300
   */
  ttl?: number;
  /** The Cloudflare provider to publish with (e.g. one with `baseUrl` or a scoped token). @default the default provider */
  provider?: cloudflare.Provider;
  /**
   * Comment on every record. Cloudflare allows 100 characters on free plans.
   * @default "pulumi <project>/<stack>: email <purpose>"
   */
  comment?: pulumi.Input<string>;
}

export interface DomainVerificationSettings {
  /**
   * The checks that must report OK; `["spf", "dkim"]` for a sending-only domain.
   * @default ["spf", "dkim", "mx", "returnPath"]
   */
  checks?: pulumi.Input<pulumi.Input<CheckName>[]>;
  /** How long `pulumi up` waits, in seconds (1 to 7200). @default 600 */
  timeoutSeconds?: pulumi.Input<number>;
  /**
   * First wait between checks, in seconds (1 to 300); waits then grow to `maxPollIntervalSeconds`.
   * @default 5
   */
  pollIntervalSeconds?: pulumi.Input<number>;
  /**
   * Longest wait between checks, in seconds (1 to 300, at least `pollIntervalSeconds`): about the
   * longest `pulumi up` waits once the records are valid.
   * @default 5, or `pollIntervalSeconds` when that is longer
   */
  maxPollIntervalSeconds?: pulumi.Input<number>;
}

export interface DomainArgs {
  /**
   * The sending domain, lowercase. Changing it replaces the domain (deleted first: names are unique).
   * @example "mail.example.com"
   */
  name: pulumi.Input<string>;
  /**
   * Publish the domain's DNS records in this Cloudflare zone: SPF, DKIM and return path as
   * `<name>-spf`, `<name>-dkim`, `<name>-return-path`, and one MX per service mail host as
   * `<name>-mx-<n>`. Without it the records are only outputs (`dnsRecords`), for DNS hosted elsewhere.
   * @example { zoneId: "023e105f4ecef8ad9ca31a8372d0c353" }
   */
  cloudflare?: DomainCloudflareArgs;
  /**
   * Wait during `pulumi up` until the service reports the checks OK, or `false` not to wait.
   * @default { checks: ["spf", "dkim", "mx", "returnPath"], timeoutSeconds: 600, pollIntervalSeconds: 5, maxPollIntervalSeconds: 5 }
   */
  verification?: DomainVerificationSettings | false;
  /**
   * Take over a domain of this name that already exists on the service. Its DNS records cannot
   * be read back from the service, so none are published for it: they are assumed to exist. If
   * no such domain exists, it is created and its records published as usual (then they appear
   * only once the service has answered, not in a first preview).
   * @default false
   */
  adopt?: boolean;
}

/**
 * A sending domain: the domain on the email service, its DNS records in Cloudflare, and a
 * verification that waits until the service's checks pass.
 *
 * @example
 * const domain = new Domain("mail", {
 *   name: "mail.example.com",
 *   cloudflare: { zoneId: zone.id },
 * });
 * new Route("support", { name: "support", domainId: domain.domainId, endpointId: 1 });
 */
export class Domain extends pulumi.ComponentResource {
  /** The service's id. With verification, it resolves once the domain is verified. */
  readonly domainId: pulumi.Output<number>;
  readonly uuid: pulumi.Output<string>;
  /** The records the service asks to be published (FQDN names; TXT content unquoted). */
  readonly dnsRecords: pulumi.Output<DnsRecord[]>;
  readonly spfStatus: pulumi.Output<string | null>;
  readonly dkimStatus: pulumi.Output<string | null>;
  readonly mxStatus: pulumi.Output<string | null>;
  readonly returnPathStatus: pulumi.Output<string | null>;
  /** True when every requested check passed (false without verification). */
  readonly verified: pulumi.Output<boolean>;
  /** The Cloudflare records published (empty without `cloudflare`). */
  readonly records: pulumi.Output<cloudflare.DnsRecord[]>;
  /** The verification, unless `verification: false`. */
  readonly verification: DomainVerification | undefined;

  constructor(name: string, args: DomainArgs, opts?: pulumi.ComponentResourceOptions) {
    super("email-delivery:index:Domain", name, {}, opts);
    const service = new ServiceDomain(name, { name: args.name, adopt: args.adopt }, { parent: this });

    // With `adopt`, whether records can be published is known only once the service has answered.
    const published = args.cloudflare
      ? publishRecords(name, service.dnsRecords, args.cloudflare, this, { upFront: !args.adopt })
      : undefined;
    this.records = published ? published.records : pulumi.output([]);

    const verification =
      args.verification === false
        ? undefined
        : new DomainVerification(
            `${name}-verification`,
            { domainId: service.domainId, ...args.verification },
            { parent: this, dependsOn: published?.dependsOn ?? [] },
          );
    this.verification = verification;

    this.domainId = verification ? verification.domainId : service.domainId;
    this.uuid = service.uuid;
    this.dnsRecords = service.dnsRecords;
    this.spfStatus = verification ? verification.spfStatus : service.spfStatus;
    this.dkimStatus = verification ? verification.dkimStatus : service.dkimStatus;
    this.mxStatus = verification ? verification.mxStatus : service.mxStatus;
    this.returnPathStatus = verification ? verification.returnPathStatus : service.returnPathStatus;
    this.verified = verification ? verification.verified : pulumi.output(false);

    this.registerOutputs({
      domainId: this.domainId,
      uuid: this.uuid,
      dnsRecords: this.dnsRecords,
      spfStatus: this.spfStatus,
      dkimStatus: this.dkimStatus,
      mxStatus: this.mxStatus,
      returnPathStatus: this.returnPathStatus,
      verified: this.verified,
    });
  }
}

/** Records every service publishes exactly once, known by purpose before the domain exists. */
const SINGLE_RECORDS = [
  { purpose: "spf", type: "TXT" },
  { purpose: "dkim", type: "TXT" },
  { purpose: "return_path", type: "CNAME" },
] as const;

/** Cloudflare's limit for comments on free plans. */
const MAX_COMMENT_LENGTH = 100;

/**
 * One `cloudflare.DnsRecord` per record the service asks for. With `upFront`, SPF, DKIM and return
 * path are declared at once with everything known filled in (zone, type, TTL, comment), so a
 * preview shows them before the domain exists. The others (one MX per mail host, and any purpose
 * a service may add) are declared once the service has answered, named by purpose and ordered
 * by content so names stay stable. Returns the records, and what to give `dependsOn` so the
 * dependency on every record shows in previews too.
 */
function publishRecords(
  name: string,
  dnsRecords: pulumi.Output<DnsRecord[]>,
  settings: DomainCloudflareArgs,
  parent: Domain,
  { upFront }: { upFront: boolean },
): { records: pulumi.Output<cloudflare.DnsRecord[]>; dependsOn: pulumi.Input<pulumi.Resource>[] } {
  const ttl = settings.ttl ?? 300;
  const problem = ttlProblem(ttl);
  if (problem) throw new pulumi.ResourceError(`Domain ${name}: cloudflare.ttl ${problem}`, parent);
  const options: pulumi.CustomResourceOptions = {
    parent,
    provider: settings.provider,
    deleteBeforeReplace: true,
  };

  const declare = (resourceName: string, purpose: string, type: string, record: pulumi.Output<DnsRecord>) =>
    new cloudflare.DnsRecord(
      resourceName,
      {
        zoneId: settings.zoneId,
        name: record.apply(cloudflareName),
        type,
        content: record.apply(cloudflareContent),
        ttl,
        ...(type === "MX" ? { priority: record.apply((value) => value.priority ?? 10) } : {}),
        proxied: false,
        comment: recordComment(settings, purpose),
      },
      options,
    );

  const declaredUpFront = upFront
    ? SINGLE_RECORDS.map(({ purpose, type }) =>
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
      )
    : [];
  const upFrontPurposes: string[] = upFront ? SINGLE_RECORDS.map((record) => record.purpose) : [];

  const declaredLater = dnsRecords.apply((records) => {
    if (records.length === 0) {
      pulumi.log.warn(
        `${name}: the domain was adopted, so its DNS records are not known and none are published`,
        parent,
      );
    }
    const byPurpose = new Map<string, DnsRecord[]>();
    for (const record of records.filter((candidate) => !upFrontPurposes.includes(candidate.purpose))) {
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

  return {
    records: declaredLater.apply((later) => [...declaredUpFront, ...later]),
    // Pulumi gathers dependencies through nested outputs and arrays: the up-front records are
    // known in previews; the others join once the domain exists.
    dependsOn: [...declaredUpFront, declaredLater as unknown as pulumi.Input<pulumi.Resource>],
  };
}

/** The comment given, where "" means none (Cloudflare stores it as none); else one naming the stack. */
function recordComment(settings: DomainCloudflareArgs, purpose: string): pulumi.Input<string> {
  if (settings.comment !== undefined) {
    return pulumi.output(settings.comment).apply((comment) => comment || undefined) as pulumi.Output<string>;
  }
  const comment = `pulumi ${pulumi.getProject()}/${pulumi.getStack()}: email ${purpose.replace(/_/g, " ")}`;
  return comment.length <= MAX_COMMENT_LENGTH ? comment : `${comment.slice(0, MAX_COMMENT_LENGTH - 1)}…`;
}
