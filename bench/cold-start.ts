import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import type { BenchEmulator } from "./emulator-process";
import { BenchProviders, configureProviders, median } from "./setup";

/** How a fresh process makes its first request. */
export type ColdMode = "provider" | "provider, SDK loaded first" | "got" | "node:http";
export const COLD_MODES: ColdMode[] = ["provider", "provider, SDK loaded first", "got", "node:http"];

/** One sample: a fresh Node process. */
export interface ColdSample {
  /** From the process's start (its time origin) to the script's first line: Node's own start. */
  bootMs: number;
  /** `require("@pulumi/pulumi")`, which the provider host has done before any provider loads. */
  sdkMs: number;
  /** Loading the client: the installed package's providers entry, got, or node:http. */
  loadMs: number;
  /** The first request (the provider: configure + a domain read, i.e. one `domains/list`). */
  firstCallMs: number;
  /** The spawn to the exit, seen from the bench. */
  processMs: number;
}

export interface ColdStartFigures {
  mode: ColdMode;
  samples: ColdSample[];
  loadMedianMs: number;
  firstCallMedianMs: number;
  /** load + first call, per sample, median. */
  totalMedianMs: number;
  sdkMedianMs: number;
  processMedianMs: number;
}

/**
 * Plain CommonJS run by plain `node` in the installed project, as the provider host runs there:
 * no tsx, the package's compiled code, required by name as the stored loader requires it.
 */
const SCRIPT = `
const { performance } = require("node:perf_hooks");
const bootMs = performance.now();
const [mode, url, apiKey, domainId, stateJson] = process.argv.slice(2);
const time = async (work) => { const start = performance.now(); const value = await work(); return [performance.now() - start, value]; };
const headers = { "user-agent": "pulumi-email-delivery", accept: "application/json", "x-server-api-key": apiKey, "content-type": "application/json" };
const check = (text) => { if (JSON.parse(text).status !== "success") throw new Error(text); };
(async () => {
  let sdkMs = 0;
  if (mode === "provider, SDK loaded first") [sdkMs] = await time(() => require("@pulumi/pulumi"));
  let loadMs, firstCallMs;
  if (mode.startsWith("provider")) {
    let providers;
    [loadMs, providers] = await time(() => require("node:module").createRequire(process.cwd() + "/")("pulumi-email-delivery/providers"));
    const config = { "emailDelivery:baseUrl": url, "emailDelivery:apiKey": apiKey };
    const request = { config: { get: (key) => config[key], require: (key) => config[key] } };
    [firstCallMs] = await time(async () => {
      await providers.domainProvider.configure(request);
      const read = await providers.domainProvider.read(domainId, JSON.parse(stateJson));
      if (read.id !== domainId) throw new Error("the domain read found nothing");
    });
  } else if (mode === "got") {
    let got;
    [loadMs, got] = await time(async () => (await import("got")).default);
    [firstCallMs] = await time(async () => check((await got.post(url + "/api/v1/domains/list", { headers, body: "{}" })).body));
  } else {
    let http;
    [loadMs, http] = await time(() => require("node:http"));
    [firstCallMs] = await time(() => new Promise((resolve, reject) => {
      const request = http.request(url + "/api/v1/domains/list", { method: "POST", headers }, (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk) => (text += chunk)).on("end", () => { try { check(text); resolve(); } catch (error) { reject(error); } });
      });
      request.on("error", reject);
      request.end("{}");
    }));
  }
  process.stdout.write(JSON.stringify({ bootMs, sdkMs, loadMs, firstCallMs }) + "\\n");
  process.exit(0); // keep-alive sockets and the SDK's handles must not hold the process
})().catch((error) => { console.error(error); process.exit(1); });
`;

/**
 * Every Pulumi command starts a fresh provider process, so what it pays first is loading the
 * providers and a first call on a cold process (no JIT, no open connection): `samples` fresh Node
 * processes per mode, the modes in rotating order, each making the same first request against the
 * emulator process (a `domains/list`: the first request of a refresh).
 */
export async function measureColdStart(
  emulator: BenchEmulator,
  providers: BenchProviders,
  projectDir: string,
  samples: number,
): Promise<ColdStartFigures[]> {
  await configureProviders(emulator, providers);
  const name = `cold-${process.pid}.example.com`;
  const domain = await providers.domainProvider.create(
    (await providers.domainProvider.check!({}, { name })).inputs!,
  );
  const script = path.join(projectDir, "bench-cold-start.cjs");
  await fs.writeFile(script, SCRIPT);
  const byMode = new Map<ColdMode, ColdSample[]>(COLD_MODES.map((mode) => [mode, []]));
  try {
    for (let i = 0; i < samples; i++) {
      for (let k = 0; k < COLD_MODES.length; k++) {
        const mode = COLD_MODES[(i + k) % COLD_MODES.length];
        const args = [script, mode, emulator.emailApi.url, emulator.emailApi.apiKey, domain.id];
        const started = performance.now();
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [...args, JSON.stringify(domain.outs)],
          { cwd: projectDir },
        );
        const processMs = performance.now() - started;
        byMode
          .get(mode)!
          .push({ ...(JSON.parse(stdout.trim()) as Omit<ColdSample, "processMs">), processMs });
      }
    }
  } finally {
    await fs.rm(script, { force: true });
    await providers.domainProvider.delete!(domain.id, domain.outs!);
  }
  return COLD_MODES.map((mode) => summarizeCold(mode, byMode.get(mode)!));
}

/** Medians of one mode's samples. */
export function summarizeCold(mode: ColdMode, samples: ColdSample[]): ColdStartFigures {
  return {
    mode,
    samples,
    loadMedianMs: median(samples.map((s) => s.loadMs)),
    firstCallMedianMs: median(samples.map((s) => s.firstCallMs)),
    totalMedianMs: median(samples.map((s) => s.loadMs + s.firstCallMs)),
    sdkMedianMs: median(samples.map((s) => s.sdkMs)),
    processMedianMs: median(samples.map((s) => s.processMs)),
  };
}
