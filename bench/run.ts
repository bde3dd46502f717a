/**
 * `npm run bench`: requests per lifecycle step, warm provider calls against got and node:http,
 * cold starts, verification latency, the provider text each resource stores and the state it
 * makes, and peak memory, against the emulator on 127.0.0.1 in a process of its own, with the
 * package packed and installed from its tarball into a throwaway project, as users install it.
 * Also routes created at once against a rate-limited service, and the same without a limit.
 * Prints tables; writes bench/results/latest.json and bench/results/refresh-requests.svg.
 *
 * Also N domains in one Cloudflare zone through the test kit (bench/zone-scale.ts): each command's
 * Cloudflare reads and email-service lists beside the ideal; and the policy pack over N domains
 * (bench/policy-scale.ts) against the same calls with no policy.
 *
 * By default a few minutes on 2 cores: sizes 10,100, 50 samples, 3 cold samples, T = 0,10, zone
 * sizes 1,10,100, a zone of 5,000 records. The large sizes are opt-in (--full, 15 minutes or more).
 * Options: --sizes 10,100,1000   --samples 300   --cold-samples 10   --valid-after 0,10,30,60,120
 *          --zone-sizes 1,10,100,1000   --big-zone 20000   --no-host
 *          --full (sizes 10,100,1000, 300 samples, 10 cold samples, T = 0,10,30,60,120, zone sizes
 *            1,10,100,1000, a zone of 20,000 records: the figures the docs quote)
 *          --smoke (everything once at the smallest sizes, nothing written: CI runs it, so the bench keeps running)
 */
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator } from "../emulator";
import { measureColdStart } from "./cold-start";
import { measureDoctorStart } from "./doctor-start";
import { measureDnsFirst } from "./dns-first";
import { refreshHost } from "./host-refresh";
import { LifecycleResult, runLifecycle } from "./lifecycle";
import { MemoryPeak, sampleMemory } from "./memory";
import { measureOverhead } from "./overhead";
import { measurePolicyScale } from "./policy-scale";
import { installPackage } from "./package";
import { measureProviderTexts } from "./provider-text";
import { measureRateLimited, RateLimitedFigures } from "./rate-limit";
import { BenchResults, formatReport, writeResults } from "./report";
import { since, startBenchEmulator } from "./setup";
import { measureStateSize } from "./state-size";
import { measureVerifications } from "./verification";
import { measureZoneScale, ZoneScaleResult } from "./zone-scale";

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}
const numbers = (text: string) => text.split(",").map(Number).filter(Number.isFinite);

async function main(): Promise<void> {
  const smoke = process.argv.includes("--smoke");
  // `--quick` was the default's name before the default became it.
  const quick = smoke || !process.argv.includes("--full");
  const sizes = numbers(option("sizes", smoke ? "10" : quick ? "10,100" : "10,100,1000"));
  const samples = Number(option("samples", smoke ? "5" : quick ? "50" : "300"));
  const coldSamples = Number(option("cold-samples", smoke ? "1" : quick ? "3" : "10"));
  const validAfter = numbers(option("valid-after", smoke ? "0" : quick ? "0,10" : "0,10,30,60,120"));
  const zoneSizes = numbers(option("zone-sizes", smoke ? "1,10" : quick ? "1,10,100" : "1,10,100,1000"));
  const bigZone = Number(option("big-zone", smoke ? "500" : quick ? "5000" : "20000"));
  const viaHost = !process.argv.includes("--no-host");
  const started = performance.now();
  const progress = (line: string) =>
    process.stderr.write(`[bench ${(since(started) / 1000).toFixed(1)} s] ${line}\n`);

  progress("packing the package and installing its tarball into a throwaway project");
  const installed = await installPackage();
  const { providers } = installed;
  const emulator = await startBenchEmulator();
  try {
    progress("provider texts: size, and load time in fresh processes");
    const providerTexts = await measureProviderTexts(installed.texts, installed.dir);
    progress("state size for N = 1, 10, 50 domains");
    const stateSize = await measureStateSize(emulator, providers, installed.texts);

    // Memory first, in a lifecycle of its own without the host: the host refresh encodes every
    // Read in this process, which is the harness's memory, not the providers'.
    const largest = Math.max(...sizes);
    progress(`lifecycle for memory, N = ${largest}`);
    const sampler = sampleMemory();
    await runLifecycle(emulator, { routes: largest, providers, onStep: sampler.sample });
    const memory: MemoryPeak & { routes: number } = { ...sampler.stop(), routes: largest };

    const lifecycle: LifecycleResult[] = [];
    const hostRefresh = () =>
      refreshHost(emulator, {
        texts: {
          domain: installed.texts.Domain,
          route: installed.texts.Route,
          verification: installed.texts.DomainVerification,
        },
        cwd: installed.dir,
        step: "refresh (host)",
      });
    for (const n of sizes) {
      progress(`lifecycle, N = ${n}`);
      lifecycle.push(
        await runLifecycle(emulator, {
          routes: n,
          providers,
          // Through the host, with the stored loader.
          afterCreate: viaHost ? async (fleet) => [await hostRefresh().refresh(fleet)] : undefined,
        }),
      );
    }

    progress("warm calls: provider, got, node:http");
    const overhead = await measureOverhead(emulator, providers, samples);
    progress(`cold starts: ${coldSamples} fresh processes per mode`);
    const coldStart = await measureColdStart(emulator, providers, installed.dir, coldSamples);
    progress(`doctor: ${coldSamples * 3} fresh processes per way`);
    const doctorStart = await measureDoctorStart(emulator, installed.dir, coldSamples * 3);
    progress("rate limit: 200 routes at once at 20 requests/s, burst 20; then without a limit, 5 times");
    const rateLimited: RateLimitedFigures[] = [
      await measureRateLimited(emulator, {
        routes: 200,
        limit: { requestsPerSecond: 20, burst: 20 },
        providers,
      }),
    ];
    for (let i = 0; i < 5; i++)
      rateLimited.push(await measureRateLimited(emulator, { routes: 200, providers }));
    // Alone, after the rest: its processes would otherwise share the cores with timed work.
    progress(`verifications, records valid after ${validAfter.join(", ")} s, all at once`);
    const verification = await measureVerifications(startBenchEmulator, installed.dir, validAfter);

    progress(
      `zone scale: N = ${zoneSizes.join(", ")} domains in one zone, then one among ${bigZone} records`,
    );
    const zoneScale = await measureZoneScales(zoneSizes, bigZone, progress);
    progress("service checks per verified domain, DNS-first against service-only (fake clock)");
    const dnsFirst = await measureDnsFirst();
    progress(`policy pack over N = ${zoneSizes.join(", ")} domains, against the same calls with no policy`);
    const policyScale = await measurePolicyScale(zoneSizes, {
      policies: () =>
        installed
          .require<typeof import("../provider/policy")>("pulumi-email-delivery/policy")
          .emailDeliveryPolicies(),
      rounds: smoke ? 1 : 5,
    });

    const results: BenchResults = {
      generatedAt: new Date().toISOString(),
      command: ["npm run bench", ...process.argv.slice(2)].join(" "),
      loadAverage: os.loadavg(),
      machine: {
        node: process.version,
        platform: `${os.platform()} ${os.arch()}`,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model.trim() ?? "unknown",
      },
      durationMs: since(started),
      lifecycle,
      memory,
      overhead,
      coldStart,
      doctorStart,
      verification,
      rateLimited,
      providerTexts,
      stateSize,
      zoneScale,
      dnsFirst,
      policyScale,
    };
    process.stdout.write(formatReport(results));
    // A smoke run proves the bench still runs; its figures are too small to keep.
    if (smoke) return;
    const files = await writeResults(path.join(__dirname, "results"), results);
    process.stdout.write(
      `\nwritten: ${files.map((file) => path.relative(process.cwd(), file)).join(", ")}\n`,
    );
  } finally {
    await emulator.stop();
    await installed.remove();
  }
}

/**
 * Each scenario against an emulator of its own in this process (request counts do not depend on
 * where it runs; the kit needs its live object), with 1024-bit DKIM keys (the key size changes
 * no count).
 */
async function measureZoneScales(
  sizes: number[],
  bigZone: number,
  progress: (line: string) => void,
): Promise<ZoneScaleResult[]> {
  const scenarios = [
    ...sizes.map((domains) => ({ domains, otherRecords: 0 })),
    { domains: 1, otherRecords: bigZone },
  ];
  const results: ZoneScaleResult[] = [];
  for (const scenario of scenarios) {
    progress(`zone scale: ${scenario.domains} domain(s), ${scenario.otherRecords} other records`);
    const emulator = await startEmulator({ dns: { dkimKeyBits: 1024 } });
    try {
      results.push(await measureZoneScale(emulator, scenario));
    } finally {
      await emulator.stop();
    }
  }
  return results;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
