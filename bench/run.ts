/**
 * `npm run bench`: requests per lifecycle step, provider overhead against raw HTTP, verification
 * latency, the provider text each resource stores and the state it makes, and peak memory,
 * against the emulator on 127.0.0.1, with the package packed and installed from its tarball into
 * a throwaway project, as users install it.
 * Also routes created at once against a rate-limited service, and the same without a limit.
 * Prints a table; writes bench/results/latest.json and bench/results/refresh-requests.svg.
 *
 * Options: --sizes 10,100,1000   --samples 300   --valid-after 3,6   --no-host
 */
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../packaging/clean-clone";
import { refreshHost } from "./host-refresh";
import { LifecycleResult, runLifecycle } from "./lifecycle";
import { MemoryPeak, sampleMemory } from "./memory";
import { measureOverhead } from "./overhead";
import { installPackage } from "./package";
import { measureProviderTexts, serializeByValue } from "./provider-text";
import { measureRateLimited, RateLimitedFigures } from "./rate-limit";
import { BenchResults, formatReport, writeResults } from "./report";
import { since, startBenchEmulator } from "./setup";
import { measureStateSize } from "./state-size";
import { measureVerification, VerificationFigures } from "./verification";

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}
const numbers = (text: string) => text.split(",").map(Number).filter(Number.isFinite);

async function main(): Promise<void> {
  const sizes = numbers(option("sizes", "10,100,1000"));
  const samples = Number(option("samples", "300"));
  const validAfter = numbers(option("valid-after", "3,6"));
  const viaHost = !process.argv.includes("--no-host");
  const started = performance.now();
  const progress = (line: string) =>
    process.stderr.write(`[bench ${(since(started) / 1000).toFixed(1)} s] ${line}\n`);

  progress("packing the package and installing its tarball into a throwaway project");
  const installed = await installPackage();
  const { providers } = installed;
  const emulator = await startBenchEmulator();
  try {
    progress("serializing the providers by value, as before the loader");
    const byValue = await serializeByValue();
    const texts = { loader: installed.texts, "by value": byValue };
    progress("provider texts: size, and load time in fresh processes");
    const providerTexts = await measureProviderTexts([
      { form: "loader", texts: installed.texts, cwd: installed.dir },
      { form: "by value", texts: byValue, cwd: REPO_ROOT },
    ]);
    progress("state size for N = 1, 10, 50 domains");
    const stateSize = await measureStateSize(emulator, providers, texts);

    // Memory first, in a lifecycle of its own without the host: the host refresh encodes every
    // Read in this process, which is the harness's memory, not the providers'.
    const largest = Math.max(...sizes);
    progress(`lifecycle for memory, N = ${largest}`);
    const sampler = sampleMemory();
    await runLifecycle(emulator, { routes: largest, providers, onStep: sampler.sample });
    const memory: MemoryPeak & { routes: number } = { ...sampler.stop(), routes: largest };

    const lifecycle: LifecycleResult[] = [];
    const hostWith = (form: "loader" | "by value", cwd: string) =>
      refreshHost(emulator, {
        texts: { domain: texts[form].Domain, route: texts[form].Route },
        cwd,
        step: form === "loader" ? "refresh (host)" : "refresh (host, by value)",
      });
    for (const n of sizes) {
      progress(`lifecycle, N = ${n}`);
      lifecycle.push(
        await runLifecycle(emulator, {
          routes: n,
          providers,
          // Through the host with the stored loader; at the largest N also with the text stored
          // before it, for comparison.
          afterCreate: viaHost
            ? async (fleet) => [
                await hostWith("loader", installed.dir).refresh(fleet),
                ...(n === largest ? [await hostWith("by value", REPO_ROOT).refresh(fleet)] : []),
              ]
            : undefined,
        }),
      );
    }

    progress("overhead against raw got");
    const overhead = await measureOverhead(emulator, providers, samples);
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
    const verification: VerificationFigures[] = [];
    for (const seconds of validAfter) {
      progress(`verification, records valid after ${seconds} s`);
      verification.push(await measureVerification(emulator, providers, seconds));
    }

    const results: BenchResults = {
      generatedAt: new Date().toISOString(),
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
      verification,
      rateLimited,
      providerTexts,
      stateSize,
    };
    process.stdout.write(formatReport(results));
    const files = await writeResults(path.join(__dirname, "results"), results);
    process.stdout.write(
      `\nwritten: ${files.map((file) => path.relative(process.cwd(), file)).join(", ")}\n`,
    );
  } finally {
    await emulator.stop();
    await installed.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
