import { dnsServerProblem, parseDnsServers } from "../dns/server-address";
import { DNS_NAMESERVERS_SETTING, DNS_RESOLVER_SETTING } from "./connection-settings";
import { configured } from "./configured";

/**
 * The DNS servers the package asks, from stack config (as `configure()` remembered it) or the
 * environment: its own module, so that a program's zone survey loads them without the client.
 */

/**
 * The DNS server the SPF checks ask: `fromConfig` (the stack config as the caller reads it; the
 * value `configure()` remembered by default), else the environment, else undefined (this
 * machine's resolver). Throws naming where a malformed value came from; an empty one counts as unset.
 */
export function dnsResolverSetting(fromConfig = configured().dnsResolver): string | undefined {
  const { config, env } = DNS_RESOLVER_SETTING;
  const value = fromConfig || process.env[env] || undefined;
  const problem = value === undefined ? undefined : dnsServerProblem(value);
  if (problem) {
    const source = fromConfig ? `Stack config ${config}` : `The ${env} environment variable`;
    throw new Error(`${source} ${problem}.`);
  }
  return value;
}

/**
 * The servers a verification asks as every domain's nameservers: stack config, else the
 * environment, else undefined (each zone's own, found through the resolver). Throws naming where
 * a malformed value came from; an empty one counts as unset.
 */
export function dnsNameserversSetting(fromConfig = configured().dnsNameservers): string[] | undefined {
  const { config, env } = DNS_NAMESERVERS_SETTING;
  const value = fromConfig || process.env[env] || undefined;
  if (value === undefined) return undefined;
  const parsed = parseDnsServers(value);
  if ("problem" in parsed) {
    const source = fromConfig ? `Stack config ${config}` : `The ${env} environment variable`;
    throw new Error(`${source} ${parsed.problem}.`);
  }
  return parsed.servers;
}
