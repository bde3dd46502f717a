/**
 * `npm run bench`: requests per lifecycle step, provider overhead against raw HTTP, verification
 * latency, serialized provider text and peak memory, against the emulator on 127.0.0.1.
 * Prints a table; writes bench/results/latest.json and bench/results/refresh-requests.svg.
 *
 * Options: --sizes 10,100,1000   --samples 300   --valid-after 3,6   --no-host
 */
import * as os from "node:os";
import * as path from "node:path";
import { startRefreshHost } from "./host-refresh";
import { LifecycleResult, runLifecycle } from "./lifecycle";
import { MemoryPeak, sampleMemory } from "./memory";
import { measureOverhead } from "./overhead";
import { BenchResults, formatReport, writeResults } from "./report";
import { measureSerialization, serializeProviders } from "./serialization";
import { since, startBenchEmulator } from "./setup";
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

  const emulator = await startBenchEmulator();
  try {
    progress("serializing the providers as a Pulumi program does");
    const serialized = await serializeProviders();
    const serialization = await measureSerialization(serialized);

    // Memory first, in a lifecycle of its own without the host: the host refresh encodes every
    // Read (each carrying the ~100 KB provider text) in this process, which is the harness's
    // memory, not the providers'.
    const largest = Math.max(...sizes);
    progress(`lifecycle for memory, N = ${largest}`);
    const sampler = sampleMemory();
    await runLifecycle(emulator, { routes: largest, onStep: sampler.sample });
    const memory: MemoryPeak & { routes: number } = { ...sampler.stop(), routes: largest };

    const host = viaHost
      ? await startRefreshHost(emulator, {
          domain: serialized.find((s) => s.provider === "domainProvider")!.text,
          route: serialized.find((s) => s.provider === "routeProvider")!.text,
        })
      : undefined;
    const lifecycle: LifecycleResult[] = [];
    try {
      for (const n of sizes) {
        progress(`lifecycle, N = ${n}`);
        lifecycle.push(
          await runLifecycle(emulator, {
            routes: n,
            afterCreate: host ? (fleet) => host.refresh(fleet) : undefined,
          }),
        );
      }
    } finally {
      await host?.stop();
    }

    progress("overhead against raw got");
    const overhead = await measureOverhead(emulator, samples);
    const verification: VerificationFigures[] = [];
    for (const seconds of validAfter) {
      progress(`verification, records valid after ${seconds} s`);
      verification.push(await measureVerification(emulator, seconds));
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
      serialization,
    };
    process.stdout.write(formatReport(results));
    const files = await writeResults(path.join(__dirname, "results"), results);
    process.stdout.write(
      `\nwritten: ${files.map((file) => path.relative(process.cwd(), file)).join(", ")}\n`,
    );
  } finally {
    await emulator.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
