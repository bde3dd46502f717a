import type * as pulumi from "@pulumi/pulumi";
import type {
  ExistingRecordPolicy,
  MxExistingRecordPolicy,
  SpfExistingRecordPolicy,
} from "../../dns/existing-records";
import { isRecordPurpose, RecordPurpose } from "../../dns/zone-records";

/**
 * What to do, per purpose, with a record the zone already holds at a name where the domain
 * publishes one, when this stack did not make it. Records this stack made (its ownership mark in
 * their comment) are always its own.
 */
export interface ExistingRecordsArgs {
  /**
   * The SPF record at the domain name (`v=spf1 …`). `"merge"` adds the service's `include:` to
   * it (the one SPF record a name may have), keeping every mechanism of yours and your `all`; on
   * destroy only the added include is taken out.
   * @default "fail"
   */
  spf?: SpfExistingRecordPolicy;
  /** The DKIM record (its selector is new for each domain, so one is rarely there). @default "fail" */
  dkim?: ExistingRecordPolicy;
  /** Any record at the return-path name (a CNAME shares its name with nothing). @default "fail" */
  returnPath?: ExistingRecordPolicy;
  /** The DMARC record at `_dmarc.<name>`, with `dmarc` set. @default "fail" */
  dmarc?: ExistingRecordPolicy;
  /**
   * MX records at the domain name. `"fail"` refuses while any that this stack did not make exist
   * (mail would be split between two providers); `"add"` publishes beside them on purpose.
   * For a sending-only domain set `mx: false` on the `Domain` instead.
   * @default "fail"
   */
  mx?: MxExistingRecordPolicy;
}

const RECORD_POLICIES: readonly string[] = ["fail", "adopt", "overwrite"];
const ALLOWED: Record<keyof ExistingRecordsArgs, readonly string[]> = {
  spf: [...RECORD_POLICIES, "merge"],
  dkim: RECORD_POLICIES,
  returnPath: RECORD_POLICIES,
  dmarc: RECORD_POLICIES,
  mx: ["fail", "add"],
};
const KEY_OF: Record<RecordPurpose, keyof ExistingRecordsArgs> = {
  spf: "spf",
  dkim: "dkim",
  return_path: "returnPath",
  dmarc: "dmarc",
  mx: "mx",
};

/** The policies of one `Domain`, checked: `of(purpose)` for each record. */
export class ExistingRecordPolicies {
  private constructor(private readonly byKey: Required<ExistingRecordsArgs>) {}

  /**
   * From `cloudflare.existingRecords`: one policy for every purpose but MX (which only takes
   * "fail" or "add": adopting or overwriting someone's mail servers is not offered), or one per
   * purpose. Throws naming the property for a value that is not one of the choices.
   */
  static from(given: ExistingRecordPolicy | ExistingRecordsArgs | undefined): ExistingRecordPolicies {
    const property = "cloudflare.existingRecords";
    const base = typeof given === "string" ? given : "fail";
    const perPurpose: ExistingRecordsArgs = typeof given === "object" && given !== null ? given : {};
    if (given !== undefined && typeof given !== "string" && (typeof given !== "object" || given === null)) {
      throw new Error(
        `${property} must be a policy or an object of policies per record, not ${typeof given}`,
      );
    }
    if (!RECORD_POLICIES.includes(base)) {
      throw new Error(
        `${property} must be one of ${RECORD_POLICIES.join(", ")} (or an object of them per record), not ${JSON.stringify(base)}`,
      );
    }
    for (const key of Object.keys(perPurpose)) {
      // Own keys only: `constructor`, `toString`… are in every object, and no record of a domain.
      if (!Object.hasOwn(ALLOWED, key)) {
        throw new Error(
          `${property}.${key} is not a record of a domain (records: ${Object.keys(ALLOWED).join(", ")})`,
        );
      }
    }
    const policies = {} as Record<keyof ExistingRecordsArgs, string>;
    for (const [key, allowed] of Object.entries(ALLOWED) as [
      keyof ExistingRecordsArgs,
      readonly string[],
    ][]) {
      const value = perPurpose[key] ?? (key === "mx" ? "fail" : base);
      if (!allowed.includes(value)) {
        throw new Error(
          `${property}.${key} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`,
        );
      }
      policies[key] = value;
    }
    return new ExistingRecordPolicies(policies as Required<ExistingRecordsArgs>);
  }

  /** The policy for a record of `purpose` (a purpose the service adds later: "fail"). */
  of(purpose: string): ExistingRecordPolicy | SpfExistingRecordPolicy | MxExistingRecordPolicy {
    return isRecordPurpose(purpose) ? this.byKey[KEY_OF[purpose]] : "fail";
  }

  /** The properties whose policy this package carries out itself (`ClaimedDnsRecord`). */
  claimed(): string[] {
    return (Object.keys(this.byKey) as (keyof ExistingRecordsArgs)[])
      .filter((key) => this.byKey[key] !== "fail")
      .map((key) => `cloudflare.existingRecords.${key}`);
  }
}

/**
 * Why the records this package claims itself (`claimed`, the policies other than "fail") cannot
 * be written as the Domain is set up, if they cannot: it writes them with the default Cloudflare
 * provider's token (stack config `cloudflare:apiToken`, else CLOUDFLARE_API_TOKEN), never with a
 * provider given to the Domain (`cloudflare.provider`, or `providers` on it or a parent), and an
 * API key with an email is no token. Checked when the program runs, so the preview fails and an
 * `up` makes nothing on the service.
 */
export function claimedRecordsProblem(
  claimed: readonly string[],
  provider: pulumi.ProviderResource | undefined,
  token: string | undefined,
): string | undefined {
  if (claimed.length === 0) return undefined;
  const settings =
    "the default Cloudflare provider's settings (stack config cloudflare:apiToken and cloudflare:baseUrl, or " +
    "CLOUDFLARE_API_TOKEN and CLOUDFLARE_BASE_URL)";
  if (provider) {
    return (
      `${claimed.join(", ")} cannot be carried out with cloudflare.provider (or a Cloudflare provider in ` +
      `providers, on this Domain or a parent): this package writes those records itself, with ${settings}. ` +
      'Leave the provider out, or use "fail" and sort out the existing records by hand.'
    );
  }
  if (!token) {
    return (
      `${claimed.join(", ")} need a Cloudflare API token: this package writes those records itself, with ${settings}, ` +
      "and neither is set: set it with `pulumi config set --secret cloudflare:apiToken …`, or in the " +
      "CLOUDFLARE_API_TOKEN environment variable (an API key with an email, which the Cloudflare provider also " +
      "takes, is not enough)."
    );
  }
  return undefined;
}
