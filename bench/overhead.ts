import got from "got";
import type { Emulator } from "../emulator";
import { forgetSharedLists, processRuntime } from "../provider/client/process-runtime";
import { BenchProviders, configureProviders, median, percentile } from "./setup";

/** One operation timed through the provider and as a raw got call of the same request. */
export interface OverheadFigures {
  operation: string;
  samples: number;
  providerMedianMs: number;
  rawMedianMs: number;
  providerP90Ms: number;
  rawP90Ms: number;
  /** provider median / raw median; the target is ≤ 1.25. */
  ratio: number;
}

/**
 * Times provider calls against raw got requests of the same HTTP request (same URL, body,
 * headers, the providers' own keep-alive agent), alternating the two so drift hits both alike,
 * after a warm-up. Sequential: one request at a time, so each sample is one round trip.
 */
export async function measureOverhead(
  emulator: Emulator,
  providers: BenchProviders,
  samples = 300,
): Promise<OverheadFigures[]> {
  const { domainProvider, routeProvider } = providers;
  await configureProviders(emulator, providers);
  const name = `overhead-${process.pid}.example.com`;
  const domain = await domainProvider.create((await domainProvider.check!({}, { name })).inputs!);
  const endpointId = emulator.state.endpoints[0].id;
  const route = await routeProvider.create(
    (await routeProvider.check!({}, { name: "timed", domainId: Number(domain.id), endpointId })).inputs!,
  );
  const runtime = processRuntime();
  const raw = got.extend({
    prefixUrl: emulator.emailApi.url.replace(/\/?$/, "/"),
    agent: { http: runtime.httpAgent, https: runtime.httpsAgent },
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    responseType: "text",
    headers: {
      "user-agent": "pulumi-email-delivery",
      accept: "application/json",
      "x-server-api-key": emulator.emailApi.apiKey,
    },
  });
  const post = async (operation: string, body: Record<string, unknown>) => {
    const response = await raw.post(`api/v1/${operation}`, { json: body });
    const answer = JSON.parse(response.body) as { status: string };
    if (answer.status !== "success") throw new Error(`${operation}: ${response.body}`);
    return answer;
  };

  let spam = 0;
  const spamMode = () => (++spam % 2 ? "Quarantine" : "Mark");
  const routeState = route.outs!;
  const cases: { operation: string; provider: () => Promise<unknown>; raw: () => Promise<unknown> }[] = [
    {
      // The provider sends only the changed property, as here.
      operation: "route update (routes/update)",
      provider: () => {
        const mode = spamMode();
        return routeProvider.update!(
          route.id,
          { ...routeState, spamMode: "x" },
          { ...routeState, spamMode: mode },
        );
      },
      raw: () => post("routes/update", { id: Number(route.id), spam_mode: spamMode() }),
    },
    {
      // A read that must fetch: the first of its kind in a refresh.
      operation: "domain read, fresh list (domains/list)",
      provider: () => {
        forgetSharedLists();
        return domainProvider.read!(domain.id, domain.outs!);
      },
      raw: () => post("domains/list", {}),
    },
    {
      operation: "route read, fresh lists (routes/list + domains/list)",
      provider: () => {
        forgetSharedLists();
        return routeProvider.read!(route.id, routeState);
      },
      raw: () => Promise.all([post("routes/list", {}), post("domains/list", {})]),
    },
    {
      // Every later read of the same refresh reuses the lists: no request at all.
      operation: "route read, lists reused within a refresh",
      provider: () => routeProvider.read!(route.id, routeState),
      raw: () => Promise.all([post("routes/list", {}), post("domains/list", {})]),
    },
  ];

  const figures: OverheadFigures[] = [];
  for (const { operation, provider, raw: rawCall } of cases) {
    for (let i = 0; i < 30; i++) {
      await provider();
      await rawCall();
    }
    const viaProvider: number[] = [];
    const viaRaw: number[] = [];
    for (let i = 0; i < samples; i++) {
      // Alternate which goes first, so neither always follows the other.
      const order = i % 2 ? [provider, rawCall] : [rawCall, provider];
      for (const run of order) {
        const start = performance.now();
        await run();
        (run === provider ? viaProvider : viaRaw).push(performance.now() - start);
      }
    }
    const providerMedianMs = median(viaProvider);
    const rawMedianMs = median(viaRaw);
    figures.push({
      operation,
      samples,
      providerMedianMs,
      rawMedianMs,
      providerP90Ms: percentile(viaProvider, 0.9),
      rawP90Ms: percentile(viaRaw, 0.9),
      ratio: providerMedianMs / rawMedianMs,
    });
  }
  await routeProvider.delete!(route.id, routeState);
  await domainProvider.delete!(domain.id, domain.outs!);
  return figures;
}
