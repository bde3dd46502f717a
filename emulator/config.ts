/**
 * The emulated installation's DNS settings, as Postal's `dns.*` config keys (the `dns` group of
 * Postal's `lib/postal/config_schema.rb`).
 * They decide which records a domain must publish and what the domain check expects.
 */
export interface MailDnsConfig {
  /** `dns.spf_include` @default "spf.postal.example.com" */
  spfInclude: string;
  /** `dns.return_path_domain` @default "rp.postal.example.com" */
  returnPathDomain: string;
  /** `dns.custom_return_path_prefix` @default "psrp" */
  returnPathPrefix: string;
  /** `dns.mx_records` @default ["mx1.postal.example.com", "mx2.postal.example.com"] */
  mxRecords: string[];
  /** `dns.dkim_identifier` @default "postal" */
  dkimIdentifier: string;
  /** RSA key size for new domains' DKIM keys (Postal uses 1024). @default 1024 */
  dkimKeyBits: number;
}

/** Postal's default DNS settings (each field's `@default`), a fresh copy each call. */
export const defaultMailDnsConfig = (): MailDnsConfig => ({
  spfInclude: "spf.postal.example.com",
  returnPathDomain: "rp.postal.example.com",
  returnPathPrefix: "psrp",
  mxRecords: ["mx1.postal.example.com", "mx2.postal.example.com"],
  dkimIdentifier: "postal",
  dkimKeyBits: 1024,
});

/** Settings of the Cloudflare stand-in. */
export interface CloudflareConfig {
  /** The bearer token it accepts. */
  apiToken: string;
  /**
   * Split a quoted TXT string longer than 255 bytes into `"<255>" "<rest>"`, as Cloudflare does.
   * @default true
   */
  splitLongTxt: boolean;
  /**
   * Changes the body of each record created through the API (one by one or in a batch) before it
   * is stored: set in-process with `emulator.cloudflare.rewriteCreates` (the test kit's
   * `hooks.cloudflareRecord`). Seeding does not go through it.
   */
  rewriteCreate?: (body: Record<string, unknown>) => Record<string, unknown>;
}

/** Where the domain check sends its DNS queries: `host:port`. */
export type ResolverAddress = string;

/**
 * `ip:port` as URLs and node:dns's `setServers` take it (an IPv6 address in brackets: `::1:7753`
 * would be another address, on port 53). The emulator gives the addresses it bound, never the
 * `host` it was asked for: a name such as `localhost` would be looked up by every client.
 */
export function addressWithPort(ip: string, port: number): string {
  return ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
}
