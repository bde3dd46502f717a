import { promises as dnsPromises } from "node:dns";
import type { SpfResolver } from "../../provider/dns";

/**
 * node's resolver asking one DNS server (the emulator's, a proxy in front of it) from a test, with
 * bounds a loaded machine does not break. Each call makes a fresh resolver with 3 tries: 2 s, then
 * 2 to 4 s, then 4 to 8 s (node checks once a second), so ETIMEOUT only after about 15 s without an
 * answer. Use one per query, never one for many: after 3 answers c-ares sets a resolver's timeout
 * to 5 times their mean latency, at least 250 ms, whatever `timeout` says, and cuts any timeout
 * over 5 s to 5 s (c-ares 1.34, ares_metrics.c).
 */
export function resolverAt(address: string): dnsPromises.Resolver {
  const resolver = new dnsPromises.Resolver({ timeout: 2000, tries: 3 });
  resolver.setServers([address]);
  return resolver;
}

/** An SPF evaluator's lookups through `address`, each with a resolver of its own ({@link resolverAt}). */
export function spfResolverAt(address: string): SpfResolver {
  return {
    txt: (name) => resolverAt(address).resolveTxt(name),
    a: (name) => resolverAt(address).resolve4(name),
    aaaa: (name) => resolverAt(address).resolve6(name),
    mx: (name) => resolverAt(address).resolveMx(name),
  };
}
