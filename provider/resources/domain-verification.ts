import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord } from "../client";
import type { CheckName } from "../inputs";
import type { ReceiversVerdicts } from "../receivers/judge";
import { EmailDeliveryDynamicResource } from "./dynamic-resource";

/**
 * What a {@link DomainVerification} takes: the domain, the checks to wait for, and how long.
 *
 * @example
 * { domainId: domain.domainId, checks: ["spf", "dkim"], timeoutSeconds: 1200 }
 */
export interface DomainVerificationArgs {
  /**
   * The domain to wait for: the service's id, a positive whole number. Changing it replaces the
   * verification.
   * @example domain.domainId
   */
  domainId: pulumi.Input<number>;
  /**
   * The checks that must report OK: at least one, each once. Choose `["spf", "dkim"]` for a
   * sending-only domain.
   * @default ["spf", "dkim", "mx", "returnPath"]
   * @example ["spf", "dkim"]
   */
  checks?: pulumi.Input<pulumi.Input<CheckName>[]>;
  /**
   * How long `pulumi up` waits, in seconds: 1 to 7200. Dynamic resources ignore `customTimeouts`; this is
   * the timeout. On timeout the resource stays in state as not verified and the next `up` waits again.
   * @default 600
   */
  timeoutSeconds?: pulumi.Input<number>;
  /**
   * First wait between checks, in seconds: 1 to 300, at most `timeoutSeconds`. Waits then grow to
   * `maxPollIntervalSeconds`.
   * @default 5
   */
  pollIntervalSeconds?: pulumi.Input<number>;
  /**
   * Longest wait between checks, in seconds: 1 to 300, at least `pollIntervalSeconds`. Records are seen at
   * the first check after they turn valid, so this is about the longest `pulumi up` waits after
   * that; a longer one makes fewer requests (each check makes the service do a few DNS lookups).
   * @default 5, or `pollIntervalSeconds` when that is longer
   */
  maxPollIntervalSeconds?: pulumi.Input<number>;
  /**
   * The records the domain should publish, as the service gave them: a `Domain`'s `dnsRecords`
   * (a `Domain` passes its own). With them the wait asks DNS before asking the service (a check
   * cannot pass before DNS serves the record), and a failure says, check by check, what each of
   * the zone's nameservers serves instead and what to change. Changing them alone waits for nothing.
   * @default none: the service is asked at every poll, and a failure shows its statuses and texts only
   * @example domain.dnsRecords
   */
  dnsRecords?: pulumi.Input<pulumi.Input<DnsRecord>[]>;
  /**
   * The Cloudflare zone the records are published in (32 hex digits): a failure then shows what
   * the zone holds at each record's name too (read once, when the wait times out, with the
   * token the package's own Cloudflare writes use).
   * @default none: only DNS is asked
   */
  zoneId?: pulumi.Input<string>;
  /**
   * What `pulumi up` does when the service's checks pass but receivers would not accept the
   * domain's mail, judged from the records the domain's nameservers serve (with `dnsRecords`; RFC
   * 7208, 6376, 7489: a second SPF record, a DMARC policy the service's mail cannot pass, a revoked
   * or short DKIM key): `"fail"` (the resource stays not verified, with a line per finding) or
   * `"warn"` (it passes, the findings said as a warning), for a stack that does not own the
   * domain's posture. A DNS answer that cannot be had is never taken for a pass.
   * @default "fail"
   * @example "warn"
   */
  whenReceiversReject?: pulumi.Input<"fail" | "warn">;
}

/**
 * Waits until the service reports the domain's DNS checks OK. Usable alone when DNS is managed
 * elsewhere; give it `dependsOn` the records so it never checks before they exist.
 *
 * @group Resources
 */
export class DomainVerification extends EmailDeliveryDynamicResource {
  /** The domain's id, resolved once the wait is over. */
  declare readonly domainId: pulumi.Output<number>;
  /** True when every requested check is OK. */
  declare readonly verified: pulumi.Output<boolean>;
  /** The SPF check's status at the last check (`OK`, `Missing`, `Invalid`). */
  declare readonly spfStatus: pulumi.Output<string | null>;
  /** Why the SPF check failed at the last check; null when it did not. */
  declare readonly spfError: pulumi.Output<string | null>;
  /** The DKIM check's status at the last check. */
  declare readonly dkimStatus: pulumi.Output<string | null>;
  /** Why the DKIM check failed at the last check; null when it did not. */
  declare readonly dkimError: pulumi.Output<string | null>;
  /** The MX check's status at the last check. */
  declare readonly mxStatus: pulumi.Output<string | null>;
  /** Why the MX check failed at the last check; null when it did not. */
  declare readonly mxError: pulumi.Output<string | null>;
  /** The return-path check's status at the last check. */
  declare readonly returnPathStatus: pulumi.Output<string | null>;
  /** Why the return-path check failed at the last check; null when it did not. */
  declare readonly returnPathError: pulumi.Output<string | null>;
  /**
   * What receivers decided at the wait's end (with `dnsRecords`): `spf`, `dkim` and `dmarc`
   * (`pass`, `fail`, `unknown`; DMARC also `none`: no policy governs the domain) and `accepted`
   * (null when DNS did not let them judge). Undefined without records.
   */
  declare readonly receivers: pulumi.Output<ReceiversVerdicts | undefined>;

  constructor(name: string, args: DomainVerificationArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      "verificationProvider",
      "DomainVerification",
      name,
      {
        domainId: args.domainId,
        checks: args.checks,
        timeoutSeconds: args.timeoutSeconds,
        pollIntervalSeconds: args.pollIntervalSeconds,
        maxPollIntervalSeconds: args.maxPollIntervalSeconds,
        dnsRecords: args.dnsRecords,
        zoneId: args.zoneId,
        whenReceiversReject: args.whenReceiversReject,
      },
      [
        "verified",
        "spfStatus",
        "spfError",
        "dkimStatus",
        "dkimError",
        "mxStatus",
        "mxError",
        "returnPathStatus",
        "returnPathError",
        "receivers",
      ],
      opts,
    );
  }
}
