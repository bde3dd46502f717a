import * as pulumi from "@pulumi/pulumi";
import type { Publisher } from "../../dns/existing-records";
import { formerStackNamesProblem } from "../../inputs";
import { dnsResolverSetting } from "../../dynamic/dns-settings";
import { DNS_RESOLVER_SETTING } from "../../dynamic/connection-settings";

/**
 * The stack config a Domain's publishing reads, each value checked when the program runs, so that
 * a mistake fails `pulumi preview` naming the setting, not the first write or lookup that uses it.
 */
export interface PublishingConfig {
  /**
   * This stack, whose ownership mark its records carry, and the names it had before `pulumi stack
   * rename` (`emailDelivery:formerStackNames`): records marked with those are its own.
   */
  publisher: Publisher;
  /**
   * Where the return path goes before the service has said so: Postal's prefix (`psrp`, its
   * `dns.custom_return_path_prefix`), or the one `emailDelivery:returnPathPrefix` names for an
   * installation that changed it.
   */
  returnPathPrefix: string;
  /** The installation's SPF include (`emailDelivery:spfInclude`, Postal's `dns.spf_include`), when named. */
  spfInclude?: string;
  /** Where the SPF checks of a merge send their queries (`emailDelivery:dnsResolver`). */
  dnsServer?: string;
}

/** Stack config naming the installation's SPF include. */
const SPF_INCLUDE_SETTING = "emailDelivery:spfInclude";
const RETURN_PATH_PREFIX_SETTING = "emailDelivery:returnPathPrefix";

/** This stack's publishing config, or a `ResourceError` on `parent` naming the setting at fault. */
export function publishingConfig(parent: pulumi.Resource): PublishingConfig {
  try {
    // In the order the settings were always checked, so a stack with two bad ones sees the same first.
    const dnsServer = dnsResolverSetting(pulumi.runtime.getConfig(DNS_RESOLVER_SETTING.config));
    const spfInclude = spfIncludeSetting(pulumi.runtime.getConfig(SPF_INCLUDE_SETTING));
    const former = new pulumi.Config("emailDelivery").getObject<unknown>("formerStackNames") ?? [];
    const formerProblem = formerStackNamesProblem(former);
    if (formerProblem) throw new Error(`stack config emailDelivery:formerStackNames ${formerProblem}`);
    return {
      publisher: { project: pulumi.getProject(), stack: pulumi.getStack(), formerStacks: former as string[] },
      returnPathPrefix: returnPathPrefixSetting(pulumi.runtime.getConfig(RETURN_PATH_PREFIX_SETTING)),
      ...(spfInclude !== undefined && { spfInclude }),
      ...(dnsServer !== undefined && { dnsServer }),
    };
  } catch (error) {
    throw new pulumi.ResourceError((error as Error).message, parent);
  }
}

/** `emailDelivery:returnPathPrefix`, checked: one DNS label (`psrp` when not set). */
export function returnPathPrefixSetting(value: string | undefined): string {
  const prefix = value ?? "psrp";
  if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(prefix)) {
    throw new Error(
      `stack config ${RETURN_PATH_PREFIX_SETTING} must be one DNS label in lowercase (your installation's ` +
        `dns.custom_return_path_prefix, e.g. "psrp"), not ${JSON.stringify(prefix)}`,
    );
  }
  return prefix;
}

/** `emailDelivery:spfInclude`, checked: a domain name, as an `include:` takes (undefined when not set). */
export function spfIncludeSetting(value: string | undefined): string | undefined {
  if (value === undefined || value === "") return undefined;
  if (!/^[a-z0-9_]([a-z0-9_-]*[a-z0-9])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9])?)+\.?$/i.test(value))
    throw new Error(
      `stack config ${SPF_INCLUDE_SETTING} must be your installation's SPF include, a domain name such as ` +
        `"spf.postal.example.com" (Postal's dns.spf_include), not ${JSON.stringify(value)}`,
    );
  return value.toLowerCase().replace(/\.$/, "");
}
