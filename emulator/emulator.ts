/**
 * What the emulator takes and what a running one offers: the public shape of
 * `pulumi-email-delivery/emulator`. Starting one is `start.ts`.
 */
import type { MailDnsConfig } from "./config";
import type { FaultInjector, FaultRule } from "./http/faults";
import type { AccountLimit, CloudflareAccountLimit } from "./http/account-limit";
import type { RateLimit, ServiceRateLimit } from "./http/rate-limit";
import type { RequestLog } from "./http/request-log";
import type { CloudflareSeeding, EmailApiSeeding } from "./seeding";
import type { EmulatorState } from "./store/state";

/**
 * What {@link startEmulator} takes; every option has a default.
 *
 * @example
 * const emulator = await startEmulator({ zones: ["example.com"], faults: [{ endpoints: "domains/create", rate503: 0.5 }] });
 */
export interface EmulatorOptions {
  /** Address every server binds to. Only loopback is sensible. @default "127.0.0.1" */
  host?: string;
  /** Ports; 0 picks a free one. @default 0 for each */
  ports?: {
    /** The email API's HTTP port. */
    emailApi?: number;
    /** The Cloudflare stand-in's HTTP port. */
    cloudflare?: number;
    /** The DNS server's port (UDP and TCP). */
    dns?: number;
  };
  /**
   * API key of the seeded server. A state file's stored key wins, so the printed key always works.
   * @default random (24 alphanumerics, like Postal's)
   */
  apiKey?: string;
  /** SMTP key of the seeded server (refused by the HTTP API, as in Postal); stored key wins. @default random */
  smtpKey?: string;
  /** Master key for `server/create`. @default random */
  masterKey?: string;
  /** Bearer token the Cloudflare stand-in accepts. @default random, 40 characters */
  cloudflareToken?: string;
  /** Zones the Cloudflare stand-in holds (and the DNS server is authoritative for). @default ["example.com"] */
  zones?: string[];
  /** HTTP endpoints of the seeded server, which routes deliver to. @default three endpoints */
  endpoints?: {
    /** The endpoint's name. */
    name: string;
    /** Where it would deliver (nothing is sent). */
    url: string;
  }[];
  /** The installation's DNS settings (SPF include, MX hosts, …). @default Postal's defaults */
  dns?: Partial<MailDnsConfig>;
  /**
   * How many authoritative name servers answer for the zones, each a DNS server on its own port:
   * 1 or 2. A Cloudflare zone has two, and its NS records name both: with 1, one server answers as
   * both; with 2, each NS name is its own server, and either can be held back (propagation, see
   * {@link EmulatorNameserver}). With a fixed `ports.dns`, the second takes the next port.
   * @default 1
   */
  nameservers?: number;
  /**
   * Where the domain check sends DNS queries: a DNS server's IP address, with its port when not 53
   * (`127.0.0.1:7753`, `[::1]:5353`). @default the emulator's (first) DNS server
   */
  resolver?: string;
  /** Split quoted TXT strings over 255 bytes, as Cloudflare does. @default true */
  splitLongTxt?: boolean;
  /**
   * Keep state in this JSON file: written atomically after every change, before the answer goes
   * out; reloaded (and its shape checked) on start. @default in memory
   */
  stateFile?: string;
  /** Fault rules active from the start. @default none */
  faults?: FaultRule[];
  /** Seed of the fault injector's random draws. @default 1 */
  faultSeed?: number;
  /** A server-wide request rate limit of the email API (429 with `Retry-After` over it). @default none */
  rateLimit?: RateLimit;
  /**
   * Cloudflare's account-wide API limit on the stand-in: `requests` per `windowSeconds`, then every
   * request refused with 429 (971, `Retry-After` to the window's end) until the window ends.
   * Cloudflare's own is `{ requests: 1200, windowSeconds: 300 }`. @default none
   */
  cloudflareLimit?: AccountLimit;
}

/** The email service: its settings, and its objects seeded and read without HTTP (`addDomain`, …). */
export interface EmulatorEmailApi extends EmailApiSeeding {
  /** The API's base URL: what `emailDelivery:baseUrl` takes. */
  url: string;
  /** The key of the emulator's server, which the seeding methods work on. */
  apiKey: string;
  /** The SMTP key of the emulator's server, which the HTTP API refuses. */
  smtpKey: string;
  /** The master key, for `server/create`. */
  masterKey: string;
}

/** The Cloudflare stand-in: its settings, and its zones' records seeded and read without HTTP (`addRecord`, …). */
export interface EmulatorCloudflare extends CloudflareSeeding {
  /** The API's base URL, `…/client/v4`. */
  url: string;
  /** The bearer token it accepts: what `cloudflare:apiToken` takes. */
  apiToken: string;
  /** The zones given at start (`zones`). */
  zones: {
    /** The zone's id, as Cloudflare's API and `cloudflare.DnsRecord`'s `zoneId` take it. */
    id: string;
    /** The zone's name. */
    name: string;
  }[];
  /**
   * Changes the body of every record created through the API from now on (undefined: stop), in
   * this process: what a test gives to make Cloudflare store something else than was sent.
   */
  rewriteCreates(rewrite: ((body: Record<string, unknown>) => Record<string, unknown>) | undefined): void;
}

/**
 * One of the zones' authoritative name servers. Held, it keeps serving the zones as they were at
 * `hold()` (an old value of a changed record, nothing made since) until `release()`: a server
 * propagation has not reached yet.
 *
 * @example
 * const [, lagging] = emulator.dns.nameservers;
 * lagging.hold();
 * // ... change a record: the first server answers the new value, `lagging` the old one
 * lagging.release();
 */
export interface EmulatorNameserver {
  /** The IP address it bound. */
  host: string;
  /** The port it listens on (UDP and TCP). */
  port: number;
  /** `ip:port`, an IPv6 address in brackets. */
  address: string;
  /** The names a zone's NS records give this server (both of them when it is the only server). */
  names(zone: string): string[];
  /** Freezes what it serves at the zones' present state (a second call keeps the first state). */
  hold(): void;
  /** Catches up with the zones' present state. */
  release(): void;
  /** True while held. */
  readonly held: boolean;
}

/**
 * A running emulator ({@link startEmulator}): the email service, the Cloudflare stand-in and the
 * DNS server, and what tests use to steer and inspect them.
 */
export interface Emulator {
  /** The email service. */
  emailApi: EmulatorEmailApi;
  /** The Cloudflare stand-in. */
  cloudflare: EmulatorCloudflare;
  /**
   * Its DNS server: the IP it bound (a `host` name resolved), the port, and `address`, `ip:port`
   * (an IPv6 address in brackets) as node:dns's `setServers` and `emailDelivery:dnsResolver` take it.
   */
  dns: {
    /** The IP address it bound. */
    host: string;
    /** The port it listens on. */
    port: number;
    /** `ip:port`, an IPv6 address in brackets. */
    address: string;
    /**
     * The zones' authoritative name servers (`nameservers`), in the order of the zones' NS
     * records; the first is the server above, which the domain check asks.
     */
    nameservers: EmulatorNameserver[];
  };
  /** The shared fault injector: `emulator.faults.set([...])`. */
  faults: FaultInjector;
  /** The email API's rate limit: `emulator.rateLimit.set({ requestsPerSecond, burst })`. */
  rateLimit: ServiceRateLimit;
  /** Cloudflare's account-wide limit on the stand-in: `emulator.cloudflareLimit.set({ requests, windowSeconds })`. */
  cloudflareLimit: CloudflareAccountLimit;
  /** Requests received by both HTTP servers. */
  requests: RequestLog;
  /**
   * The live state, as stored (read it in tests; change it only through the APIs or the seeding
   * methods). `emulator.cloudflare.records(zone)`, `emulator.emailApi.domains()` and `routes()`
   * give what the APIs answer instead.
   */
  state: EmulatorState;
  /** The lines a user pastes into an env file. */
  envLines(): string[];
  /** Stops the servers and writes the state file's last changes; a second call waits for the same stop. */
  stop(): Promise<void>;
}
