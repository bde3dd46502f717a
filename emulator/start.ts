import { randomBytes } from "node:crypto";
import { Resolver } from "node:dns";
import { addZone, cloudflareService, CloudflareServiceContext } from "./cloudflare";
import { normaliseName } from "./cloudflare/names";
import { addressWithPort, CloudflareConfig, defaultMailDnsConfig, MailDnsConfig } from "./config";
import { startDnsServer } from "./dns";
import { EmailApiContext, emailApiService, seedServer } from "./email-api";
import { FaultInjector, FaultRule } from "./http/faults";
import { RateLimit, ServiceRateLimit } from "./http/rate-limit";
import { RequestLog } from "./http/request-log";
import { RunningService, startHttpService } from "./http/service";
import { CloudflareSeeding, EmailApiSeeding, emulatorSeeding } from "./seeding";
import { EmulatorState } from "./store/state";
import { StateFile } from "./store/state-file";
import { Store } from "./store/store";

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
  /** Where the domain check sends DNS queries, `host:port`. @default the emulator's DNS server */
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
  };
  /** The shared fault injector: `emulator.faults.set([...])`. */
  faults: FaultInjector;
  /** The email API's rate limit: `emulator.rateLimit.set({ requestsPerSecond, burst })`. */
  rateLimit: ServiceRateLimit;
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

const DEFAULT_ENDPOINTS = [
  { name: "Inbound webhook", url: "http://127.0.0.1:9/inbound" },
  { name: "Support desk", url: "http://127.0.0.1:9/support" },
  { name: "Archive", url: "http://127.0.0.1:9/archive" },
];

/** DKIM key sizes the emulator makes: RFC 8301's least, and the most verifiers must support. */
export const MIN_DKIM_BITS = 1024;
/** The largest DKIM key size the emulator makes. */
export const MAX_DKIM_BITS = 4096;

/** Why `address` cannot be where the domain check sends its queries (Node's resolver takes IP[:port] only). */
export function resolverProblem(address: string): string | undefined {
  try {
    new Resolver().setServers([address]);
    return undefined;
  } catch {
    return `expected the IP address and port of a DNS server (e.g. 127.0.0.1:7753), not "${address}"`;
  }
}

/** Starts the email API, the Cloudflare stand-in and the DNS server together. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? "127.0.0.1";
  const badResolver = options.resolver === undefined ? undefined : resolverProblem(options.resolver);
  if (badResolver) throw new Error(`resolver: ${badResolver}`); // else every domains/check is a 500
  const dkimKeyBits = options.dns?.dkimKeyBits;
  // A size RSA refuses would start, then answer every domains/create with a 500.
  if (
    dkimKeyBits !== undefined &&
    !(Number.isInteger(dkimKeyBits) && dkimKeyBits >= MIN_DKIM_BITS && dkimKeyBits <= MAX_DKIM_BITS)
  )
    throw new Error(
      `dns.dkimKeyBits: expected a whole number from ${MIN_DKIM_BITS} to ${MAX_DKIM_BITS}, not ${dkimKeyBits}`,
    );
  // Each zone's id is printed as CLOUDFLARE_ZONE_ID_<NAME>: two zones must not share one.
  const zoneNames = [...new Set((options.zones ?? ["example.com"]).map(normaliseName))];
  const variables = new Map<string, string>();
  for (const zone of zoneNames) {
    const variable = zoneVariable(zone);
    const other = variables.get(variable);
    if (other !== undefined)
      throw new Error(
        `zones ${other} and ${zone} would both be ${variable} in the settings printed: drop one`,
      );
    variables.set(variable, zone);
  }
  for (const [name, value] of [
    ["apiKey", options.apiKey],
    ["masterKey", options.masterKey],
    ["cloudflareToken", options.cloudflareToken],
  ] as const) {
    const problem = value === undefined ? undefined : keyProblem(value);
    if (problem) throw new Error(`${name}: ${problem}`);
  }
  const file = options.stateFile ? new StateFile(options.stateFile) : undefined;
  const store = new Store((await file?.read()) ?? undefined, file);
  const faults = new FaultInjector(options.faultSeed ?? 1);
  faults.set(options.faults ?? []);
  const requests = new RequestLog();
  const rateLimit = new ServiceRateLimit("email-api", options.rateLimit);

  const existing = store.state.servers[0];
  const existingKey = (type: "API" | "SMTP") =>
    existing && store.state.credentials.find((c) => c.serverId === existing.id && c.type === type)?.key;
  const apiKey = existingKey("API") ?? options.apiKey ?? randomKey(24);
  const smtpKey = existingKey("SMTP") ?? options.smtpKey ?? randomKey(24);
  const masterKey = options.masterKey ?? randomKey(32);
  const cloudflareToken = options.cloudflareToken ?? randomKey(40);

  const server = seedServer(store, {
    name: existing?.name ?? "Main",
    apiKey,
    smtpKey,
    endpoints: options.endpoints ?? DEFAULT_ENDPOINTS,
  });
  const zones = zoneNames.map((name) => addZone(store, name));
  store.changed();
  await store.persisted(); // an unwritable state file stops the start before any port opens

  const started: { close(): Promise<void> }[] = [];
  let stopping: Promise<void> | undefined;
  try {
    const dns: MailDnsConfig = { ...defaultMailDnsConfig(), ...options.dns };
    const dnsServer = await startDnsServer({
      store,
      host,
      port: options.ports?.dns ?? 0,
      spfInclude: dns.spfInclude,
    });
    started.push(dnsServer);
    const dnsAddress = addressWithPort(dnsServer.host, dnsServer.port);
    const resolver = options.resolver ?? dnsAddress;

    const cloudflareConfig: CloudflareConfig = {
      apiToken: cloudflareToken,
      splitLongTxt: options.splitLongTxt ?? true,
    };
    const serve = (definition: Parameters<typeof startHttpService>[0], port = 0): Promise<RunningService> =>
      startHttpService(definition, {
        host,
        port,
        faults,
        log: requests,
        rateLimit,
        persisted: () => store.persisted(),
      });

    // One context per service, shared by its HTTP API and the seeding methods.
    const emailApiContext: EmailApiContext = { store, dns, masterKey, resolver: () => resolver };
    const cloudflareContext: CloudflareServiceContext = { store, config: cloudflareConfig };
    const emailApi = await serve(emailApiService(emailApiContext), options.ports?.emailApi);
    started.push(emailApi);
    const cloudflare = await serve(cloudflareService(cloudflareContext), options.ports?.cloudflare);
    started.push(cloudflare);
    const seeding = emulatorSeeding({ cloudflare: cloudflareContext, emailApi: emailApiContext, server });

    const emulator: Emulator = {
      emailApi: { url: emailApi.url, apiKey, smtpKey, masterKey, ...seeding.emailApi },
      cloudflare: {
        url: `${cloudflare.url}/client/v4`,
        apiToken: cloudflareToken,
        zones: zones.map((zone) => ({ id: zone.id, name: zone.name })),
        ...seeding.cloudflare,
      },
      dns: { host: dnsServer.host, port: dnsServer.port, address: dnsAddress },
      faults,
      rateLimit,
      requests,
      state: store.state,
      envLines: () =>
        Object.entries({
          EMAIL_DELIVERY_BASE_URL: emailApi.url,
          EMAIL_DELIVERY_API_KEY: apiKey,
          EMAIL_DELIVERY_MASTER_KEY: masterKey,
          CLOUDFLARE_BASE_URL: `${cloudflare.url}/client/v4`,
          CLOUDFLARE_API_TOKEN: cloudflareToken,
          ...Object.fromEntries(zones.map((zone) => [zoneVariable(zone.name), zone.id])),
          // For the package's SPF checks (stack config emailDelivery:dnsResolver, or this variable).
          EMAIL_DELIVERY_DNS_RESOLVER: dnsAddress,
          EMULATOR_DNS_SERVER: dnsAddress,
          EMULATOR_SERVER_ID: String(server.id),
        }).map(([name, value]) => `${name}=${envValue(value) ?? value}`),
      // Once: a second call (a test's afterAll and a finally, Ctrl-C and a script's end) waits
      // for the same stop instead of closing closed sockets.
      stop: () =>
        (stopping ??= (async () => {
          await Promise.all(started.map((s) => s.close()));
          await store.flush();
        })()),
    };
    return emulator;
  } catch (error) {
    await Promise.all(started.map((s) => s.close()));
    throw error;
  }
}

function randomKey(length: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(randomBytes(length), (byte) => alphabet[byte % alphabet.length]).join("");
}

function zoneVariable(zone: string): string {
  return `CLOUDFLARE_ZONE_ID_${zone.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/** Why `key` cannot be printed in the settings (undefined when it can). */
export function keyProblem(key: string): string | undefined {
  return envValue(key) === undefined
    ? "a key cannot hold a control character, or a ' beside a \" $ ` or \\"
    : undefined;
}

/**
 * A value as an env file (dotenv, Node's --env-file) and `sh` both read it back: as is when
 * nothing in it is special, else quoted; undefined when no quoting serves both.
 */
function envValue(value: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) return undefined;
  if (/^[A-Za-z0-9_./:@%+,=-]*$/.test(value)) return value;
  if (!value.includes("'")) return `'${value}'`;
  if (!/["$`\\]/.test(value)) return `"${value}"`;
  return undefined;
}
