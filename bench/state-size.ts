import type { DnsRecord } from "../provider/client";
import type { BenchEmulator } from "./emulator-process";
import { publishRecords } from "./records";
import type { StoredType } from "./package";
import { storedBytes } from "./provider-text";
import { BenchProviders, configureProviders } from "./setup";

/** One dynamic resource as the engine stores it: inputs and outputs, each with `__provider`. */
interface StoredResource {
  type: StoredType;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

export interface StateSizeFigures {
  domains: number;
  /** Dynamic resources: per domain, the domain, its verification and two routes (the basic example). */
  dynamicResources: number;
  /** The dynamic resources' inputs and outputs as stored (JSON), and the loader text's share of it. */
  bytes: { state: number; providerText: number };
}

/**
 * The dynamic resources' part of a stack's state for N domains shaped like the basic example
 * (each: the domain, its verification, a `support` and a `*` route), each storing its loader text.
 * One such domain is made through the providers against the emulator (its records published, so
 * the verification's outputs are those of a verified domain); its resources' inputs and outputs,
 * as the engine stores them, are measured and multiplied by N.
 */
export async function measureStateSize(
  emulator: BenchEmulator,
  providers: BenchProviders,
  texts: Record<StoredType, string>,
  counts = [1, 10, 50],
): Promise<StateSizeFigures[]> {
  await configureProviders(emulator, providers);
  const stored: StoredResource[] = [];
  const create = async (type: StoredType, provider: keyof BenchProviders, news: Record<string, unknown>) => {
    const checked = await providers[provider].check!({}, news);
    if (checked.failures?.length) throw new Error(`${type}: ${JSON.stringify(checked.failures)}`);
    const created = await providers[provider].create(checked.inputs!);
    stored.push({ type, inputs: checked.inputs!, outputs: created.outs ?? {} });
    return created;
  };
  const domain = await create("Domain", "domainProvider", { name: `state-${process.pid}.example.com` });
  await publishRecords(emulator, domain.outs!.dnsRecords as DnsRecord[]);
  const domainId = Number(domain.id);
  await create("DomainVerification", "verificationProvider", {
    domainId,
    pollIntervalSeconds: 1,
    timeoutSeconds: 60,
  });
  const endpointId = emulator.endpointId;
  const support = await create("Route", "routeProvider", {
    name: "support",
    domainId,
    endpointId,
    spamMode: "Quarantine",
  });
  const catchAll = await create("Route", "routeProvider", { name: "*", domainId, endpointId, mode: "Hold" });
  await providers.routeProvider.delete!(support.id, support.outs!);
  await providers.routeProvider.delete!(catchAll.id, catchAll.outs!);
  await providers.domainProvider.delete!(domain.id, domain.outs!);

  let state = 0;
  let providerText = 0;
  for (const { type, inputs, outputs } of stored) {
    const text = texts[type];
    state += Buffer.byteLength(
      JSON.stringify({ inputs: { ...inputs, __provider: text }, outputs: { ...outputs, __provider: text } }),
    );
    providerText += storedBytes(text);
  }
  return counts.map((domains) => ({
    domains,
    dynamicResources: domains * stored.length,
    bytes: { state: domains * state, providerText: domains * providerText },
  }));
}
