import type * as pulumi from "@pulumi/pulumi";
import { processState } from "../process-state";
import {
  CLOUDFLARE_SETTINGS,
  CONNECTION_SETTINGS,
  DNS_NAMESERVERS_SETTING,
  DNS_RESOLVER_SETTING,
} from "./connection-settings";

/** A connection setting of the email service. */
export type Setting = keyof typeof CONNECTION_SETTINGS;
/** A setting of the default Cloudflare provider that the package reads too. */
export type CloudflareSetting = keyof typeof CLOUDFLARE_SETTINGS;
type ConfiguredValues = Partial<
  Record<Setting | "dnsResolver" | "dnsNameservers" | `cloudflare.${CloudflareSetting}`, string>
>;

/**
 * Stack config read by `configure()`, process-wide (`ProcessState.config`): the providers each
 * get their own `configure()`, and the test kit's copy of the package configures the one in the
 * providers' realm. Keys live here in memory only: never in inputs, outputs or errors.
 */
export function configured(): ConfiguredValues {
  return (processState().config ??= {});
}

/** `configure()` of every provider: remember the stack's connection settings, in place of any before. */
export async function rememberConfig(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
  const values = configured();
  const sources = [
    ...(Object.entries(CONNECTION_SETTINGS) as [Setting, { config: string }][]),
    ["dnsResolver", DNS_RESOLVER_SETTING] as const,
    ["dnsNameservers", DNS_NAMESERVERS_SETTING] as const,
    ...(Object.entries(CLOUDFLARE_SETTINGS) as [CloudflareSetting, { config: string }][]).map(
      ([setting, source]) => [`cloudflare.${setting}` as const, source] as const,
    ),
  ];
  for (const [setting, source] of sources) {
    let value: string | undefined;
    try {
      value = request.config.get(source.config);
    } catch {
      value = undefined; // a host that never received Configure has no config to read
    }
    // Each configure() carries the whole stack config: a setting it lacks is unset, not kept from
    // an earlier stack (the test kit runs many stacks in one process).
    if (value) values[setting] = value;
    else delete values[setting];
  }
}

/** Forgets configured values (tests). */
export function forgetConfig(): void {
  const values = configured();
  for (const key of Object.keys(values)) delete values[key as keyof ConfiguredValues];
}
