import { parseArgs } from "node:util";
import { keyProblem } from "../client/key-check";
import { parseDnsServers } from "../dns/server-address";
import { CONNECTION_SETTINGS } from "../dynamic/connection-settings";

/**
 * The doctor's command line and settings, read as the providers read them (the same environment
 * variables), a flag overriding each. Pure: the environment is passed in.
 */

/** The usage text: `--help`, and under a usage error. */
export const DOCTOR_USAGE = `Usage: pulumi-email-delivery doctor <domain> [options]

Asks the email service to check <domain>'s DNS records and prints what each check found;
with --records, also what DNS serves for each failing check, which case it is and what to do.
Exit 0 when every check passes, 1 when any does not, 2 on a usage or settings error.

  --base-url URL   the service (default: $${CONNECTION_SETTINGS.baseUrl.env})
  --api-key KEY    the server API key (default: $${CONNECTION_SETTINGS.apiKey.env}); prefer the
                   variable: a flag's value is seen by every user of the machine (ps) and is
                   kept in shell history and CI logs
  --records FILE   the records the service asked for (- reads stdin): a Domain's
                   dnsRecords as JSON, or \`pulumi stack output --json\`
  --dns IP[:PORT][,IP[:PORT]...]
                   ask these as the zone's nameservers (the emulator prints them as
                   EMULATOR_NAMESERVERS); default: the zone's own, found through
                   this machine's resolver, which is asked too
  --json           one JSON document instead of the table
  -h, --help       this text`;

/** The command line and its settings, checked. */
export interface DoctorOptions {
  /** The domain, as given. */
  domain: string;
  baseUrl: string;
  apiKey: string;
  /**
   * `ip[:port]` of each server to ask as the zone's nameservers (`--dns`, comma-separated).
   * @default undefined: the zone's own nameservers, found through this machine's resolver
   */
  nameservers?: string[];
  /** Where to read the expected records (`--records`; `-` is stdin). @default none: no diagnosis */
  records?: string;
  json: boolean;
  /** True when the key came from `--api-key` (the command warns). */
  apiKeyFromFlag: boolean;
}

/** A usage or settings error: the command prints the message and exits 2. */
export class DoctorUsageError extends Error {}

/** `--help`: the usage text, exit 0. */
export const HELP_REQUESTED = "help";

/** The options, `"help"`, or a {@link DoctorUsageError} saying what is wrong (never a key). */
export function doctorOptions(args: string[], env: NodeJS.ProcessEnv): DoctorOptions | typeof HELP_REQUESTED {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        "base-url": { type: "string" },
        "api-key": { type: "string" },
        dns: { type: "string" },
        records: { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    // parseArgs names the option it refused; it never echoes a value.
    throw new DoctorUsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return HELP_REQUESTED;
  const [command, domain, ...extra] = positionals;
  if (command !== "doctor")
    throw new DoctorUsageError(command ? `unknown command "${command}"` : "no command");
  if (!domain) throw new DoctorUsageError("doctor: no domain given");
  if (extra.length > 0)
    throw new DoctorUsageError(`doctor: one domain at a time, not ${positionals.length - 1}`);

  const baseUrl = setting("baseUrl", values["base-url"], "--base-url", env);
  if (!/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl))
    throw new DoctorUsageError(`the base URL is not an http(s) URL`);
  const apiKey = setting("apiKey", values["api-key"], "--api-key", env);
  const problem = keyProblem(apiKey);
  if (problem) throw new DoctorUsageError(`the API key ${problem}`);
  if (values.records === "") throw new DoctorUsageError("--records: no file given (- reads stdin)");
  return {
    domain,
    baseUrl,
    apiKey,
    ...(values.dns === undefined ? {} : { nameservers: dnsServers(values.dns) }),
    ...(values.records === undefined ? {} : { records: values.records }),
    json: values.json,
    apiKeyFromFlag: values["api-key"] !== undefined,
  };
}

function setting(
  name: keyof typeof CONNECTION_SETTINGS,
  flagValue: string | undefined,
  flag: string,
  env: NodeJS.ProcessEnv,
): string {
  const { env: variable, what } = CONNECTION_SETTINGS[name];
  const value = flagValue ?? env[variable];
  // An empty value reads as none, as the providers read it.
  if (!value) throw new DoctorUsageError(`no ${what}: set ${variable}, or pass ${flag}`);
  return value;
}

/** `--dns`'s servers: comma-separated, each an address `dnsServerProblem` accepts. */
export function dnsServers(value: string): string[] {
  const parsed = parseDnsServers(value);
  if ("problem" in parsed) throw new DoctorUsageError(`--dns: ${parsed.problem}`);
  return parsed.servers;
}
