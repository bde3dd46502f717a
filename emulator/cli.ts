/**
 * `pulumi-email-delivery-emulator` (the package's command; `npm run emulator` in a clone): starts
 * the email API, the Cloudflare stand-in and the DNS server on fixed loopback ports and prints the
 * settings to paste into an env file. Ctrl-C stops them.
 */
import { parseArgs } from "node:util";
import { parseFaultRule } from "./http/faults";
import { parseAccountLimit } from "./http/account-limit";
import { parseRateLimit } from "./http/rate-limit";
import type { Emulator } from "./emulator";
import { dnsServerProblem } from "../provider/dns/server-address";
import { printedKeyProblem, MAX_DKIM_BITS, MAX_NAMESERVERS, MIN_DKIM_BITS, startEmulator } from "./start";

const HELP = `Usage: pulumi-email-delivery-emulator [options]
       (in a clone of the repository: npm run emulator -- [options])

Starts a local email delivery service, a Cloudflare DNS-records API and a DNS server that serves
the Cloudflare zones, on 127.0.0.1, and prints their settings as an env file. Ctrl-C stops them.
A port of 0 takes a free one (the settings printed say which).

  --email-port N        email API port (default 7700)
  --cloudflare-port N   Cloudflare stand-in port (default 7701)
  --dns-port N          DNS server port, UDP and TCP (default 7753)
  --api-key KEY         server API key (default EmulatorApiKey0000000001)
  --master-key KEY      master key for server/create (default EmulatorMasterKey0000001)
  --cloudflare-token T  Cloudflare bearer token (default emulator-cloudflare-token-000000000000001)
  --nameservers N       authoritative DNS servers, 1 or 2 (default 1): with 2, each of a zone's
                        two NS names is its own server, the second on the DNS port + 1
  --zone NAME           a Cloudflare zone to serve; repeatable (default example.com)
  --resolver IP[:PORT]  DNS server the domain check queries (default the emulator's own)
  --dkim-bits N         RSA key size of new DKIM keys, 1024 to 4096 (default 1024, as Postal)
  --no-split-txt        store quoted TXT strings over 255 bytes unsplit
  --state FILE          keep state in FILE (JSON, written atomically before each answer to a
                        change, so it survives kill -9; reloaded on start; a file that is not
                        JSON or not shaped as the emulator writes it stops the start)
  --fault RULE          inject faults: ENDPOINTS:KEY=VALUE,... with endpoint globs, comma-separated
                        (* within one / segment, ** anything), e.g. "domains/create:dropRate=0.5"
                        or "**:rate429=0.3,retryAfterSeconds=0"; repeatable, the first rule that
                        matches applies. Chances 0 to 1: rate429 (429 with Retry-After, nothing
                        done), rate503, dropRate (connection closed, nothing done),
                        commitThenDropRate (done, then closed unanswered); latencyMs (a delay, at
                        most 600000), retryAfterSeconds (whole, at most 86400, default 1), times
                        (that many matching requests only)
  --fault-seed N        seed of the fault draws (default 1)
  --rate-limit R[/B]    limit the email API to R requests per second, bursts of B (default R):
                        over it, 429 with Retry-After in whole seconds, and nothing is done
  --cloudflare-limit N/S  Cloudflare's account-wide limit on its stand-in: N requests per S
                        seconds (Cloudflare's is 1200/300), then 429 until the window ends

At run time, on either HTTP port: GET/DELETE /__emulator/requests, GET/PUT /__emulator/faults
(PUT {"rules": [...]} replaces every rule; a malformed body changes none), GET/PUT/DELETE
/__emulator/rate-limit (PUT {"limit":{"requestsPerSecond":20,"burst":20}}), GET/PUT/DELETE
/__emulator/cloudflare-limit (PUT {"limit":{"requests":1200,"windowSeconds":300}}).`;

/**
 * Starts the emulator from command-line arguments and prints its settings through `print`.
 * Returns the running emulator (undefined for --help).
 */
export async function runCli(
  args: string[],
  print: (line: string) => void = console.log,
): Promise<Emulator | undefined> {
  const { values } = parseArgs({
    args,
    options: {
      "email-port": { type: "string", default: "7700" },
      "cloudflare-port": { type: "string", default: "7701" },
      "dns-port": { type: "string", default: "7753" },
      "api-key": { type: "string", default: "EmulatorApiKey0000000001" },
      "master-key": { type: "string", default: "EmulatorMasterKey0000001" },
      "cloudflare-token": { type: "string", default: "emulator-cloudflare-token-000000000000001" },
      nameservers: { type: "string", default: "1" },
      zone: { type: "string", multiple: true },
      resolver: { type: "string" },
      "dkim-bits": { type: "string", default: "1024" },
      "no-split-txt": { type: "boolean", default: false },
      state: { type: "string" },
      fault: { type: "string", multiple: true },
      "fault-seed": { type: "string", default: "1" },
      "rate-limit": { type: "string" },
      "cloudflare-limit": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    print(HELP);
    return undefined;
  }
  const port = (flag: string, value: string) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535)
      throw new Error(`--${flag}: not a port: ${value}`);
    return parsed;
  };
  const wholeNumber = (flag: string, value: string, min: number, max: number) => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value) || parsed < min || parsed > max)
      throw new Error(`--${flag}: expected a whole number from ${min} to ${max}, not ${value}`);
    return parsed;
  };
  // An empty key or token reads as none: no request could authenticate.
  const nonEmpty = (flag: string, value: string) => {
    if (value.trim() === "") throw new Error(`--${flag}: must not be empty`);
    return value;
  };
  const key = (flag: string, value: string | undefined) => {
    const problem = value === undefined ? undefined : printedKeyProblem(nonEmpty(flag, value));
    if (problem) throw new Error(`--${flag}: ${problem}`);
    return value;
  };
  const resolver = (value: string | undefined) => {
    const problem = value === undefined ? undefined : dnsServerProblem(value);
    if (problem) throw new Error(`--resolver: ${problem}`);
    return value;
  };

  const ports = {
    emailApi: port("email-port", values["email-port"]),
    cloudflare: port("cloudflare-port", values["cloudflare-port"]),
    dns: port("dns-port", values["dns-port"]),
  };
  const nameservers = wholeNumber("nameservers", values.nameservers, 1, MAX_NAMESERVERS);
  const emulator = await startEmulator({
    ports,
    nameservers,
    apiKey: key("api-key", values["api-key"]),
    masterKey: key("master-key", values["master-key"]),
    cloudflareToken: key("cloudflare-token", values["cloudflare-token"]),
    zones: values.zone?.map((zone) => nonEmpty("zone", zone)),
    resolver: resolver(values.resolver),
    dns: { dkimKeyBits: wholeNumber("dkim-bits", values["dkim-bits"], MIN_DKIM_BITS, MAX_DKIM_BITS) },
    splitLongTxt: !values["no-split-txt"],
    stateFile: values.state,
    faults: (values.fault ?? []).map(parseFaultRule),
    faultSeed: wholeNumber("fault-seed", values["fault-seed"], 0, 2 ** 32 - 1),
    rateLimit: values["rate-limit"] === undefined ? undefined : parseRateLimit(values["rate-limit"]),
    cloudflareLimit:
      values["cloudflare-limit"] === undefined ? undefined : parseAccountLimit(values["cloudflare-limit"]),
  }).catch((error: NodeJS.ErrnoException & { port?: number; address?: string }) => {
    if (error.code !== "EADDRINUSE") throw error;
    // Node says "listen EADDRINUSE: address already in use …" (or "bind EADDRINUSE …" for UDP).
    const flags: Record<string, string> = {
      [ports.emailApi]: "--email-port",
      [ports.cloudflare]: "--cloudflare-port",
      [ports.dns]: "--dns-port",
    };
    if (nameservers > 1 && ports.dns !== 0) flags[ports.dns + 1] ??= "--dns-port + 1, the second name server";
    const flag = error.port === undefined ? undefined : flags[error.port];
    throw new Error(
      `port ${error.port ?? "?"}${flag ? ` (${flag})` : ""} is in use on ${error.address ?? "127.0.0.1"} ` +
        `(another emulator still running?): stop what holds it, or pick another port (0 for a free one)`,
    );
  });

  print("# email delivery emulator — paste into an env file, or `export` each line");
  for (const line of emulator.envLines()) print(line);
  print(`# ready; Ctrl-C to stop${values.state ? ` (state is kept in ${values.state})` : ""}`);
  return emulator;
}

/**
 * The command: starts the emulator, stops it on Ctrl-C or SIGTERM, and exits 1 with one line
 * (no stack trace) on a bad option or a failed start.
 */
export function main(args: string[]): void {
  const started = runCli(args);
  // Listening before the servers start: a Ctrl-C right after "ready" must stop them, not kill the process.
  const stop = () => {
    started.then((emulator) => emulator?.stop()).finally(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  started.catch((error: Error) => {
    console.error(`emulator: ${error.message}`);
    process.exit(1);
  });
}

if (require.main === module) main(process.argv.slice(2));
