import { TYPE_TOKENS } from "../../provider/resources/type-tokens";
import { domainSettings } from "../../provider/resources/domain-settings";
import { rpcSecret, UNKNOWN } from "../../testing/engine-wire";
import { wireUrn, WireResource } from "./policy-pack-host";

/**
 * Postures as the engine sends them to a policy pack (tests/policy/pack-corpus.test.ts): a `Domain`
 * component's recorded settings, the records it publishes as its children, records declared by
 * hand (at full or zone-relative names, parented or not, secret or fed from another output), in
 * a preview (what the service or another resource computes is the engine's unknown sentinel) or
 * an update (all known).
 */

export type Mode = "preview" | "update";
export const ZONE = "023e105f4ecef8ad9ca31a8372d0c353";
export const KEY_512 =
  "MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBALZxkZS964ZcSZN+kvY4S7aOSv+Ze1+kUhk7xOdnCs3OONGTL14+N8dmvUb8L7+U2Swm3naGHvxCdhAL4HazuSMCAwEAAQ==";
export const KEY_2048 =
  "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA3ByVqFMhrQkD2f6hZ32LAB0H2N7WZQ+yVCNbq8MNhlba75j0gaIjJUJhxiildgo0Tz4ppnVym6J0Clq1NS/8gsn0Fk/t2EU94lV6DYjI1QorHRiOnFG3vegqEZjQHVL3AnuchxoJhbVRjtOt9uMmYwohikeYsPyZHiQaom3CQ6R8nnWcIJhj9AFdtbKk2192/Oj/ZfLsGed9/PaKFmandA7yKrhkxGL11JmE5WcfvJJ0GoIr4ZooEzJU+Gi1gCyXiTa8Kjg9DKoMV0hTD9kDudRN6a0izlLqbwrD0IM45YZp55jTYCazUt6o773a59tnS2kCIjvVGyV8js0Qiv/wvQIDAQAB";
/** A DMARC policy a reviewer signs: reject, for subdomains too, with reports. */
export const DMARC_OK = {
  policy: "reject" as const,
  subdomainPolicy: "reject" as const,
  aggregateReports: ["mailto:dmarc@example.com"],
};

type DomainArgs = Partial<Parameters<typeof domainSettings>[0]>;

/** Options of a record declared by hand. */
export interface RecordOptions {
  /** The parent resource (a `Domain`, for `{ parent: domain }`). */
  parent?: WireResource;
  dependsOn?: WireResource[];
  ttl?: number;
  priority?: number;
  /** The zone id, when not the default zone's. */
  zoneId?: unknown;
}

/** Builds one posture's resources for a stack and a mode. */
export class World {
  constructor(
    readonly stack: string,
    readonly mode: Mode,
  ) {}

  /** `value` in an update; the engine's unknown sentinel in a preview. */
  later<T>(value: T): T | string {
    return this.mode === "preview" ? UNKNOWN : value;
  }

  /** `value` as the engine sends a secret (an unknown one in a preview when `computed`). */
  secret(value: unknown, computed = false): Record<string, unknown> {
    return rpcSecret(computed ? this.later(value) : value);
  }

  urn(resource: WireResource): string {
    return wireUrn(resource, this.stack);
  }

  /** A `Domain` component, as it records its settings (dmarc: {@link DMARC_OK} unless said). */
  domain(name: string, fqdn: string, args: DomainArgs = {}): WireResource {
    const settings = domainSettings({ name: fqdn, cloudflare: { zoneId: ZONE }, dmarc: DMARC_OK, ...args });
    return { type: TYPE_TOKENS.Domain, name, props: JSON.parse(JSON.stringify(settings)) };
  }

  /** A `cloudflare.DnsRecord` declared by hand. */
  record(
    name: string,
    type: string,
    at: string,
    content: unknown,
    options: RecordOptions = {},
  ): WireResource {
    return {
      type: TYPE_TOKENS.DnsRecord,
      name,
      props: {
        zoneId: options.zoneId ?? ZONE,
        name: at,
        type,
        content,
        ttl: options.ttl ?? 300,
        ...(options.priority !== undefined && { priority: options.priority }),
      },
      ...(options.parent && { parent: this.urn(options.parent) }),
      ...(options.dependsOn && { dependencies: options.dependsOn.map((r) => this.urn(r)) }),
    };
  }

  /** A TXT record declared by hand. */
  txt(name: string, at: string, content: unknown, options: RecordOptions = {}): WireResource {
    return this.record(name, "TXT", at, content, options);
  }

  /**
   * The `Domain` and what it registers under it, as the engine sees them: its records (the SPF,
   * DKIM and return path content is the service's answer, unknown in a preview), its DMARC record
   * and its verification.
   */
  domainWithChildren(name: string, fqdn: string, args: DomainArgs = {}): WireResource[] {
    const domain = this.domain(name, fqdn, args);
    const child = (purpose: string, type: string, at: string, content: unknown, priority?: number) =>
      this.record(`${name}-${purpose}`, type, at, content, { parent: domain, priority });
    const verification: WireResource = {
      type: TYPE_TOKENS.DomainVerification,
      name: `${name}-verification`,
      parent: this.urn(domain),
      props: { domainId: this.later(7), zoneId: ZONE },
    };
    return [
      domain,
      child("spf", "TXT", fqdn, this.later('"v=spf1 a mx include:spf.postal.example -all"')),
      child(
        "dkim",
        "TXT",
        `postal-a1b2c3._domainkey.${fqdn}`,
        this.later(`"v=DKIM1; t=s; h=sha256; p=${KEY_2048}"`),
      ),
      child("return-path", "CNAME", `psrp.${fqdn}`, "rp.postal.example"),
      child("mx-0", "MX", fqdn, "mx.postal.example", 10),
      child(
        "dmarc",
        "TXT",
        `_dmarc.${fqdn}`,
        '"v=DMARC1; p=reject; sp=reject; rua=mailto:dmarc@example.com"',
      ),
      verification,
    ];
  }

  /** A `Route` on a domain created in the same run (its `domainId` unknown in a preview). */
  route(name: string, address: string, mode: string): WireResource {
    return {
      type: TYPE_TOKENS.Route,
      name,
      props: { name: address, mode, domainId: this.later(7), endpointId: 1 },
    };
  }

  /** A `cloudflare.Zone` (its id unknown in a preview when created in the same run). */
  zone(name: string, apex: string): WireResource {
    return { type: "cloudflare:index/zone:Zone", name, props: { name: apex, id: this.later(ZONE) } };
  }
}

/** A row of the corpus (tests/support/pack-corpus.ts), and what rows share. */
export interface Posture {
  name: string;
  /** A key of the corpus' STACKS (tests/support/pack-corpus.ts). */
  stack: string;
  resources(w: World): WireResource[];
  expect: string[];
  preview?: string[];
  says?: string[];
  previewSays?: string[];
}

export type More = Pick<Posture, "preview" | "says" | "previewSays">;
export const split = (answers: string) => (answers === "" ? [] : answers.split("; "));

/** A row: answers as one string, `;`-separated ("" for none). */
export function row(
  name: string,
  stack: string,
  resources: Posture["resources"],
  expect: string,
  more: Omit<More, "preview"> & { preview?: string } = {},
): Posture {
  const preview = more.preview === undefined ? undefined : split(more.preview);
  return { name, stack, resources, expect: split(expect), ...more, preview };
}

// The resources rows share.
export const MAIL = "mail.example.com";
export const primary = (w: World, args: Parameters<World["domain"]>[2] = {}) =>
  w.domain("primary", MAIL, args);
export const noDmarc = (w: World, fqdn = MAIL) => w.domain("primary", fqdn, { dmarc: undefined });
export const spfAtNews = (content: (w: World) => unknown) => (w: World) => [
  primary(w),
  w.txt("hand", "news.example.com", content(w)),
];
export const dkimKey = (content: (w: World) => unknown) => (w: World) => [
  primary(w),
  w.txt("key", "s1._domainkey.mail.example.com", content(w)),
];
export const withDmarc = (dmarc: Record<string, unknown>, verification?: unknown) => (w: World) => [
  primary(w, {
    dmarc: dmarc as never,
    ...(verification !== undefined && { verification: verification as never }),
  }),
];
export const dmarcRecord = (fqdn: string, at: string, content: string) => (w: World) => [
  noDmarc(w, fqdn),
  w.txt("dmarc", at, content),
];
export const strict = { ...DMARC_OK, spfAlignment: "strict" };
export const pNone = { policy: "none", aggregateReports: ["mailto:d@example.com"] };
export const zoneId = (w: World) => w.later(ZONE);
/** What a staging stack answers for a Domain with DMARC: the production-only rules do not apply. */
export const STAGING = "n/a dmarc-enforced primary; n/a verification primary";
export const OWN = "n/a dkim-key primary-dkim";
export const OWN_PREVIEW = `${OWN}; n/a spf-record primary-spf`;
