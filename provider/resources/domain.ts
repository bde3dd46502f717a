import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord } from "../client";
import type { ReceiversVerdicts } from "../receivers/judge";
import { DmarcArgs, dmarcRecordContent } from "../dns";
import { CHECK_NAMES, DmarcSettingsError, domainNameProblem } from "../inputs";
import { dmarcRestsOnDkimAlone } from "../inputs/dmarc-alignment";
import { DomainPublisher } from "./publishing/domain-publisher";
import { DomainVerification, DomainVerificationArgs } from "./domain-verification";
import type { DomainCloudflareArgs } from "./publishing/domain-cloudflare-args";
import { domainSettings } from "./domain-settings";
import { ServiceDomain } from "./service-domain";
import { TYPE_TOKENS } from "./type-tokens";
import { serviceRecords } from "./unit-test-mocks";

export type { DomainCloudflareArgs } from "./publishing/domain-cloudflare-args";

/** `DomainVerification`'s settings but the domain, which the component gives it. */
export type DomainVerificationSettings = Omit<DomainVerificationArgs, "domainId" | "dnsRecords" | "zoneId">;

/** What a {@link Domain} takes: the name, and where its records go and how it is verified. */
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
   * Wait during `pulumi up` until the service reports the checks OK and receivers would accept the
   * domain's mail as its nameservers serve it, or `false` not to wait. The settings are
   * `DomainVerification`'s, with the same rules.
   * @default { checks: ["spf", "dkim", "mx", "returnPath"], timeoutSeconds: 600, pollIntervalSeconds: 5, maxPollIntervalSeconds: 5, whenReceiversReject: "fail" }
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
  /**
   * Receive mail for the domain: publish the service's MX records and wait for its MX check.
   * `false` for a sending-only domain: no MX record is published (an apex that already receives
   * mail elsewhere keeps its own MX records) and the verification leaves MX out; routes cannot
   * receive mail for it then.
   * @default true
   */
  mx?: boolean;
  /**
   * Publish a DMARC policy at `_dmarc.<name>` (with `cloudflare`). Plain values, checked when the
   * program runs, so a mistake fails `pulumi preview`. The service does not check DMARC: nothing
   * waits for it.
   * @example { policy: "quarantine", aggregateReports: ["mailto:dmarc@example.com"] }
   */
  dmarc?: DmarcArgs;
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
 *
 * @group Resources
 */
export class Domain extends pulumi.ComponentResource {
  /** The service's id. With verification, it resolves once the domain is verified. */
  readonly domainId: pulumi.Output<number>;
  /** The service's opaque id. */
  readonly uuid: pulumi.Output<string>;
  /** The records the service asks to be published (FQDN names; TXT content unquoted). */
  readonly dnsRecords: pulumi.Output<DnsRecord[]>;
  /** The SPF check's status (`OK`, `Missing`, `Invalid`): the verification's last, else the service's. */
  readonly spfStatus: pulumi.Output<string | null>;
  /** The DKIM check's status: the verification's last, else the service's. */
  readonly dkimStatus: pulumi.Output<string | null>;
  /** The MX check's status: the verification's last, else the service's. */
  readonly mxStatus: pulumi.Output<string | null>;
  /** The return-path check's status: the verification's last, else the service's. */
  readonly returnPathStatus: pulumi.Output<string | null>;
  /**
   * True when every requested check passed and receivers did not reject the domain's mail (false
   * without verification).
   */
  readonly verified: pulumi.Output<boolean>;
  /**
   * What receivers decided for the domain's mail once the service's checks passed: `spf`, `dkim`,
   * `dmarc` and `accepted` (see `DomainVerification.receivers`). Undefined without verification.
   */
  readonly receivers: pulumi.Output<ReceiversVerdicts | undefined>;
  /**
   * The records published (empty without `cloudflare`): `cloudflare.DnsRecord`s, and
   * `ClaimedDnsRecord`s where `cloudflare.existingRecords` is not "fail".
   */
  readonly records: pulumi.Output<pulumi.CustomResource[]>;
  /** The verification, unless `verification: false`. */
  readonly verification: DomainVerification | undefined;

  constructor(name: string, args: DomainArgs, opts?: pulumi.ComponentResourceOptions) {
    // Its settings are its inputs (and among its outputs) so that policies can judge them.
    const settings = domainSettings(args);
    super(TYPE_TOKENS.Domain, name, settings, opts);
    checkName(name, args.name, this);
    const mx = settings.mx;
    const dmarc = dmarcContent(name, args, this);
    warnDmarcRestsOnDkim(name, args, this);
    const publisher =
      args.cloudflare &&
      new DomainPublisher(
        name,
        args.cloudflare,
        { domainName: args.name, upFront: !args.adopt, mx, dmarc },
        this,
      );
    // The zone is looked at first: a record in the way fails before the domain is created.
    const zoneChecked = publisher?.checkZone() ?? [];
    const service = new ServiceDomain(
      name,
      { name: args.name, adopt: args.adopt },
      { parent: this, dependsOn: zoneChecked },
    );

    // With `adopt`, whether records can be published is known only once the service has answered.
    const serviceAnswer = serviceRecords(service.dnsRecords, this);
    const published = publisher?.publish(serviceAnswer);
    this.records = published ? published.records : pulumi.output([]);

    const verification =
      args.verification === false
        ? undefined
        : new DomainVerification(
            `${name}-verification`,
            {
              domainId: service.domainId,
              // What the wait asks DNS about before asking the service, and what a failure explains.
              dnsRecords: serviceAnswer,
              zoneId: args.cloudflare?.zoneId,
              ...args.verification,
              ...verificationChecks(name, mx, args.verification, this),
            },
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
    this.receivers = verification ? verification.receivers : pulumi.output(undefined);

    this.registerOutputs({
      ...settings,
      domainId: this.domainId,
      uuid: this.uuid,
      dnsRecords: this.dnsRecords,
      spfStatus: this.spfStatus,
      dkimStatus: this.dkimStatus,
      mxStatus: this.mxStatus,
      returnPathStatus: this.returnPathStatus,
      verified: this.verified,
      receivers: this.receivers,
    });
  }
}

/**
 * A name the service would refuse fails at once, naming the component: before the zone is read for
 * it or anything registered. A name given as an output is checked by the service domain's `check()`.
 */
function checkName(name: string, domainName: pulumi.Input<string>, parent: pulumi.Resource): void {
  if (typeof domainName !== "string") return;
  const problem = domainNameProblem(domainName);
  if (problem === undefined) return;
  const shown = JSON.stringify(domainName.length > 80 ? `${domainName.slice(0, 80)}…` : domainName);
  throw new pulumi.ResourceError(`Domain ${name}: name ${shown} ${problem}`, parent);
}

/** The DMARC record's content, or a preview-time failure naming every bad property. */
function dmarcContent(name: string, args: DomainArgs, parent: pulumi.Resource): string | undefined {
  if (args.dmarc === undefined) return undefined;
  let content: string;
  try {
    content = dmarcRecordContent(args.dmarc);
  } catch (error) {
    if (!(error instanceof DmarcSettingsError)) throw error;
    const problems = error.problems.map((problem) => `${problem.property} ${problem.reason}`);
    throw new pulumi.ResourceError(`Domain ${name}: ${problems.join("; ")}`, parent);
  }
  if (!args.cloudflare) {
    throw new pulumi.ResourceError(
      `Domain ${name}: dmarc is published in Cloudflare: give cloudflare.zoneId too, or publish the record yourself`,
      parent,
    );
  }
  return content;
}

/**
 * `aspf=s` can never align with the service's envelope sender (`psrp.<name>`, RFC 7489 §3.1.2), so
 * the domain's mail passes an enforcing DMARC policy by DKIM alone: a verification that does not
 * wait for DKIM leaves that to receivers' judgement at its end. Said at preview, where the settings
 * are plain values; not an error, since DKIM may well pass.
 */
function warnDmarcRestsOnDkim(name: string, args: DomainArgs, parent: pulumi.Resource): void {
  const alone = dmarcRestsOnDkimAlone(args.dmarc, args.verification);
  if (alone === undefined || alone === "unknown") return; // an output: judged at the wait
  pulumi.log.warn(
    `Domain ${name}: dmarc.spfAlignment is "strict", so the service's mail (its envelope sender is at the ` +
      `return path, psrp.<name>) passes DMARC p=${args.dmarc!.policy} by DKIM alone, and ${alone}` +
      ': add "dkim" to verification.checks, or use relaxed alignment.',
    parent,
  );
}

/**
 * Without MX, the verification's default leaves the MX check out; asking for it explicitly then is
 * a contradiction, refused at preview.
 */
function verificationChecks(
  name: string,
  mx: boolean,
  settings: DomainVerificationSettings | undefined,
  parent: pulumi.Resource,
): Pick<DomainVerificationArgs, "checks"> {
  if (mx) return {};
  const asked = settings?.checks;
  if (Array.isArray(asked) && asked.includes("mx")) {
    throw new pulumi.ResourceError(
      `Domain ${name}: verification.checks asks for "mx" but mx is false (no MX record is published): leave "mx" out`,
      parent,
    );
  }
  return asked === undefined ? { checks: CHECK_NAMES.filter((check) => check !== "mx") } : {};
}
