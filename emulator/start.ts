import { randomBytes } from "node:crypto";
import { addZone, cloudflareService, CloudflareServiceContext } from "./cloudflare";
import type { Emulator, EmulatorNameserver, EmulatorOptions } from "./emulator";
import { normaliseName } from "./cloudflare/names";
import { addressWithPort, CloudflareConfig, defaultMailDnsConfig, MailDnsConfig } from "./config";
import { startDnsServer } from "./dns";
import { NameserverView } from "./dns/nameserver-view";
import { liveZoneData, RunningDnsServer } from "./dns/server";
import { zoneByIdOrName, zoneNameServers } from "./cloudflare/zones";
import { EmailApiContext, emailApiService, seedServer } from "./email-api";
import { generateDkimKey, INSTALLATION_KEY_BITS } from "./email-api/dkim";
import { FaultInjector } from "./http/faults";
import { CloudflareAccountLimit } from "./http/account-limit";
import { ServiceRateLimit } from "./http/rate-limit";
import { RequestLog } from "./http/request-log";
import { RunningService, startHttpService } from "./http/service";
import { emulatorSeeding } from "./seeding";
import { StateFile } from "./store/state-file";
import { Store } from "./store/store";
// The one check of a DNS server address (the package's own: port 0 would abort node:dns).
import { dnsServerProblem } from "../provider/dns/server-address";

const DEFAULT_ENDPOINTS = [
  { name: "Inbound webhook", url: "http://127.0.0.1:9/inbound" },
  { name: "Support desk", url: "http://127.0.0.1:9/support" },
  { name: "Archive", url: "http://127.0.0.1:9/archive" },
];

/** The most name servers the emulator runs: the two a Cloudflare zone's NS records name. */
export const MAX_NAMESERVERS = 2;

/** DKIM key sizes the emulator makes: RFC 8301's least, and the most verifiers must support. */
export const MIN_DKIM_BITS = 1024;
/** The largest DKIM key size the emulator makes. */
export const MAX_DKIM_BITS = 4096;

/** Starts the email API, the Cloudflare stand-in and the DNS server together. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? "127.0.0.1";
  const badResolver = options.resolver === undefined ? undefined : dnsServerProblem(options.resolver);
  if (badResolver) throw new Error(`resolver: ${badResolver}`); // else every domains/check is a 500
  const nameserverCount = options.nameservers ?? 1;
  if (!(nameserverCount === 1 || nameserverCount === MAX_NAMESERVERS))
    throw new Error(
      `nameservers: expected 1 or ${MAX_NAMESERVERS} (a zone's NS records name two), not ${nameserverCount}`,
    );
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
    const problem = value === undefined ? undefined : printedKeyProblem(value);
    if (problem) throw new Error(`${name}: ${problem}`);
  }
  const file = options.stateFile ? new StateFile(options.stateFile) : undefined;
  const store = new Store((await file?.read()) ?? undefined, file);
  const faults = new FaultInjector(options.faultSeed ?? 1);
  faults.set(options.faults ?? []);
  const requests = new RequestLog();
  const rateLimit = new ServiceRateLimit("email-api", options.rateLimit);
  const cloudflareLimit = new CloudflareAccountLimit("cloudflare", options.cloudflareLimit);

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
  // The installation's own DKIM key, as Postal's installer makes its signing key: once.
  if (!store.state.signingKey) {
    const key = await generateDkimKey(INSTALLATION_KEY_BITS);
    store.state.signingKey = { publicKey: key.publicKey, privateKeyPem: key.privateKeyPem };
  }
  store.changed();
  await store.persisted(); // an unwritable state file stops the start before any port opens

  const started: { close(): Promise<void> }[] = [];
  let stopping: Promise<void> | undefined;
  try {
    const dns: MailDnsConfig = { ...defaultMailDnsConfig(), ...options.dns };
    const nameservers: EmulatorNameserver[] = [];
    const dnsPort = options.ports?.dns ?? 0;
    for (let index = 0; index < nameserverCount; index++) {
      const view = new NameserverView(() => liveZoneData(store, dns));
      const server: RunningDnsServer = await startDnsServer({
        store,
        host,
        port: dnsPort === 0 ? 0 : dnsPort + index,
        dns,
        view,
      });
      started.push(server);
      nameservers.push({
        host: server.host,
        port: server.port,
        address: addressWithPort(server.host, server.port),
        names: (zone) => {
          const names = zoneNameServers(zoneByIdOrName(store, zone));
          return nameserverCount === 1 ? names : [names[index]];
        },
        hold: () => view.hold(),
        release: () => view.release(),
        get held() {
          return view.held;
        },
      });
    }
    const dnsServer = nameservers[0];
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
        accountLimit: cloudflareLimit,
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
        rewriteCreates: (rewrite) => {
          cloudflareConfig.rewriteCreate = rewrite;
        },
        ...seeding.cloudflare,
      },
      dns: { host: dnsServer.host, port: dnsServer.port, address: dnsAddress, nameservers },
      faults,
      rateLimit,
      cloudflareLimit,
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
          // Every authoritative server, in the order of the zones' NS records (one with one).
          EMULATOR_NAMESERVERS: nameservers.map((server) => server.address).join(","),
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

/**
 * Why `key` cannot be printed in the settings file and read back (undefined when it can); the
 * client's `keyProblem` asks another question: whether an HTTP header can carry it.
 */
export function printedKeyProblem(key: string): string | undefined {
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
