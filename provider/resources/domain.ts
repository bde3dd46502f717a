import type * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord } from "../client";
import { DomainCloudflareArgs, publishRecords } from "./domain-records";
import { DomainVerification, DomainVerificationArgs } from "./domain-verification";
import { ServiceDomain } from "./service-domain";

/** `DomainVerification`'s settings but the domain, which the component gives it. */
export type DomainVerificationSettings = Omit<DomainVerificationArgs, "domainId">;

export interface DomainArgs {
  /**
   * The sending domain: lowercase, at least two labels, international names in punycode
   * (`xn--bcher-kva.example`). Changing it replaces the domain (deleted first: names are unique).
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
   * The settings are `DomainVerification`'s, with the same rules.
   * @default { checks: ["spf", "dkim", "mx", "returnPath"], timeoutSeconds: 600, pollIntervalSeconds: 5, maxPollIntervalSeconds: 5 }
   * @example { checks: ["spf", "dkim"], timeoutSeconds: 1200 }
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
