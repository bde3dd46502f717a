/**
 * The type tokens this package registers its resources under: what `pulumi preview` shows, what
 * state records, and what policies (`pulumi-email-delivery/policy`) tell resources apart by. No
 * imports, so a policy pack can read them without loading Pulumi's runtime.
 */

/** The module part of this package's dynamic resource types (`…dynamic/email-delivery:Route`). */
const DYNAMIC_MODULE = "email-delivery";

/** A dynamic resource's token: `pulumi-nodejs:dynamic/email-delivery:<type>`, as the Node.js host names it. */
export function dynamicTypeToken(type: string): string {
  return `pulumi-nodejs:dynamic/${DYNAMIC_MODULE}:${type}`;
}

/** Each resource's type token, by the name of its class. */
export const TYPE_TOKENS = {
  /** The `Domain` component. */
  Domain: "email-delivery:index:Domain",
  /** The domain on the service, a child of the `Domain` (its class is not exported). */
  ServiceDomain: dynamicTypeToken("Domain"),
  Route: dynamicTypeToken("Route"),
  DomainVerification: dynamicTypeToken("DomainVerification"),
  ClaimedDnsRecord: dynamicTypeToken("ClaimedDnsRecord"),
  /** The Cloudflare provider's record: a `Domain`'s where the package cannot write them itself. */
  DnsRecord: "cloudflare:index/dnsRecord:DnsRecord",
} as const;
