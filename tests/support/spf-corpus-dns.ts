import { quoteTxt, SpfResolver } from "../../provider/dns";
import { Emulator, startEmulator } from "../../emulator";
import { ALL_SETUPS, CORPUS_ZONES, FAILING_NAMES, SpfSetup } from "../fixtures/spf-corpus";
import type { DnsEntry } from "../fixtures/spf-corpus/setup";
import { DnsFaultProxy, startDnsFaultProxy } from "./dns-fault-proxy";
import { spfResolverAt } from "./dns-client";

/**
 * The DNS the SPF corpus (tests/fixtures/spf-corpus) is evaluated against: the emulator's DNS
 * server, on 127.0.0.1, holding every setup's records (published through its Cloudflare
 * stand-in), behind a proxy that fails the corpus's failing names at once. Started for the
 * file's tests and stopped after them; nothing else is queried.
 */
export interface CorpusDns {
  emulator: Emulator;
  proxy: DnsFaultProxy;
  /** node:dns pointed at the proxy, as `SpfResolver` (`spfResolverAt`: a fresh resolver per query). */
  resolver: SpfResolver;
}

export function useCorpusDns(): () => CorpusDns {
  let dns: CorpusDns | undefined;
  beforeAll(async () => {
    const emulator = await startEmulator({ zones: CORPUS_ZONES });
    try {
      for (const setup of ALL_SETUPS) await publishSetup(emulator, setup);
      const proxy = await startDnsFaultProxy({ upstreamPort: emulator.dns.port, ...FAILING_NAMES });
      dns = { emulator, proxy, resolver: spfResolverAt(proxy.address) };
    } catch (error) {
      await emulator.stop();
      throw error;
    }
  });
  afterAll(async () => {
    await dns?.proxy.close();
    await dns?.emulator.stop();
  });
  return () => {
    if (!dns) throw new Error("the corpus DNS has not started");
    return dns;
  };
}

/** Every name a setup publishes at: its own domain and its `dns` entries. */
export function publishedNames(setup: SpfSetup): string[] {
  return [setup.domain, ...setup.dns.map(([name]) => name)];
}

async function publishSetup(emulator: Emulator, setup: SpfSetup): Promise<void> {
  const entries: DnsEntry[] = [[setup.domain, "TXT", setup.record], ...setup.dns];
  for (const [name, type, content, priority] of entries) {
    const zone = emulator.cloudflare.zones.find((z) => name === z.name || name.endsWith(`.${z.name}`));
    if (!zone) throw new Error(`setup ${setup.id}: ${name} is in none of the emulator's zones`);
    await emulator.cloudflare
      .addRecord(zone.id, {
        name,
        type,
        content: type === "TXT" ? quoteTxt(content) : content,
        ttl: 300,
        ...(priority === undefined ? {} : { priority }),
      })
      .catch((error: Error) => {
        throw new Error(`setup ${setup.id}: publishing ${type} ${name}: ${error.message}`);
      });
  }
}
