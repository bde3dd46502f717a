import got from "got";
import * as http from "node:http";
import { forgetSharedLists, processRuntime } from "../provider/client/process-runtime";
import type { BenchEmulator } from "./emulator-process";
import { BenchProviders, configureProviders, median, percentile } from "./setup";

/** Targets of the warm-call ratios (provider median / baseline median). */
export const OVERHEAD_TARGETS = { nodeHttp: 1.5, got: 1.25 };

/** One side of a comparison: the median and p90 of its samples. */
export interface Timed {
  medianMs: number;
  p90Ms: number;
}

/** One operation timed through the provider, as a raw got call and as a plain `node:http` request. */
export interface OverheadFigures {
  operation: string;
  samples: number;
  provider: Timed;
  got: Timed;
  nodeHttp: Timed;
  /** provider median / node:http median; the target is OVERHEAD_TARGETS.nodeHttp. */
  ratioNodeHttp: number;
  /** provider median / got median; the target is OVERHEAD_TARGETS.got. */
  ratioGot: number;
}

/**
 * Times warm provider calls against the same HTTP requests sent with `got` (the library the
 * provider's client is built on) and with plain `node:http` (the floor: no library at all): same
 * URL, body and headers, the providers' own keep-alive agent for all three. The emulator runs in a
 * process of its own (bench/emulator-process.ts), so its work is the same on every side and not
 * in this process. The three alternate in a rotating order so drift hits them alike, after a
 * warm-up. Sequential: one request at a time, so each sample is one round trip (or two at once).
 */
export async function measureOverhead(
  emulator: BenchEmulator,
  providers: BenchProviders,
  samples = 300,
): Promise<OverheadFigures[]> {
  const { domainProvider, routeProvider } = providers;
  await configureProviders(emulator, providers);
  const name = `overhead-${process.pid}.example.com`;
  const domain = await domainProvider.create((await domainProvider.check!({}, { name })).inputs!);
  const endpointId = emulator.endpointId;
  const route = await routeProvider.create(
    (await routeProvider.check!({}, { name: "timed", domainId: Number(domain.id), endpointId })).inputs!,
  );
  const runtime = processRuntime();
  const headers = {
    "user-agent": "pulumi-email-delivery",
    accept: "application/json",
    "x-server-api-key": emulator.emailApi.apiKey,
  };
  const raw = got.extend({
    prefixUrl: emulator.emailApi.url.replace(/\/?$/, "/"),
    agent: { http: runtime.httpAgent, https: runtime.httpsAgent },
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    responseType: "text",
    headers,
  });
  const checked = (operation: string, body: string) => {
    const answer = JSON.parse(body) as { status: string };
    if (answer.status !== "success") throw new Error(`${operation}: ${body}`);
    return answer;
  };
  const viaGot = async (operation: string, body: Record<string, unknown>) =>
    checked(operation, (await raw.post(`api/v1/${operation}`, { json: body })).body);
  const base = new URL(emulator.emailApi.url);
  const viaNodeHttp = (operation: string, body: Record<string, unknown>) =>
    new Promise<unknown>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const request = http.request(
        {
          host: base.hostname,
          port: base.port,
          method: "POST",
          path: `/api/v1/${operation}`,
          agent: runtime.httpAgent,
          headers: {
            ...headers,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(payload),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => {
            try {
              resolve(checked(operation, Buffer.concat(chunks).toString("utf8")));
            } catch (error) {
              reject(error);
            }
          });
          response.on("error", reject);
        },
      );
      request.on("error", reject);
      request.end(payload);
    });

  let spam = 0;
  const spamMode = () => (++spam % 2 ? "Quarantine" : "Mark");
  const routeState = route.outs!;
  type Send = (operation: string, body: Record<string, unknown>) => Promise<unknown>;
  const cases: {
    operation: string;
    provider: () => Promise<unknown>;
    raw: (send: Send) => Promise<unknown>;
  }[] = [
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
      raw: (send) => send("routes/update", { id: Number(route.id), spam_mode: spamMode() }),
    },
    {
      // A read that must fetch: the first of its kind in a refresh. (Later reads of the same
      // refresh reuse the list: a cache hit, counted in the lifecycle table, not timed here.)
      operation: "domain read (domains/list)",
      provider: () => {
        forgetSharedLists();
        return domainProvider.read!(domain.id, domain.outs!);
      },
      raw: (send) => send("domains/list", {}),
    },
    {
      operation: "route read (routes/list + domains/list at once)",
      provider: () => {
        forgetSharedLists();
        return routeProvider.read!(route.id, routeState);
      },
      raw: (send) => Promise.all([send("routes/list", {}), send("domains/list", {})]),
    },
  ];

  const figures: OverheadFigures[] = [];
  for (const { operation, provider, raw: rawCall } of cases) {
    const sides = [
      { name: "provider" as const, run: provider, times: [] as number[] },
      { name: "got" as const, run: () => rawCall(viaGot), times: [] as number[] },
      { name: "nodeHttp" as const, run: () => rawCall(viaNodeHttp), times: [] as number[] },
    ];
    for (let i = 0; i < 30; i++) for (const side of sides) await side.run();
    for (let i = 0; i < samples; i++) {
      // Rotate which goes first, so none always follows another.
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(i + k) % sides.length];
        const start = performance.now();
        await side.run();
        side.times.push(performance.now() - start);
      }
    }
    const timed = (times: number[]): Timed => ({ medianMs: median(times), p90Ms: percentile(times, 0.9) });
    const [viaProvider, viaGotTimes, viaHttpTimes] = sides.map((side) => timed(side.times));
    figures.push({
      operation,
      samples,
      provider: viaProvider,
      got: viaGotTimes,
      nodeHttp: viaHttpTimes,
      ratioNodeHttp: viaProvider.medianMs / viaHttpTimes.medianMs,
      ratioGot: viaProvider.medianMs / viaGotTimes.medianMs,
    });
  }
  await routeProvider.delete!(route.id, routeState);
  await domainProvider.delete!(domain.id, domain.outs!);
  return figures;
}
