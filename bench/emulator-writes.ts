/**
 * Write throughput of the emulator, with and without `--state`: `npx tsx bench/emulator-writes.ts
 * [requests] [concurrency,…] [rounds]`. Starts `npm run emulator`'s CLI as a child process (a fresh
 * one, with a fresh state file, per measurement), creates `requests` TXT records through the
 * Cloudflare stand-in (a cheap write: no key generation) from `concurrency` clients at once, and
 * prints the median requests per second over `rounds`. Reported, never asserted.
 */
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulatorProcess } from "./emulator-process";

async function measure(requests: number, concurrency: number, stateFile?: string): Promise<number> {
  const emulator = await startEmulatorProcess(stateFile ? ["--state", stateFile] : []);
  const env = emulator.env!;
  const url = `${env.CLOUDFLARE_BASE_URL}/zones/${env.CLOUDFLARE_ZONE_ID_EXAMPLE_COM}/dns_records`;
  const create = async (n: number) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${env.CLOUDFLARE_API_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ type: "TXT", name: `r${n}.example.com`, content: `"bench ${n}"`, ttl: 300 }),
    });
    if (response.status !== 200) throw new Error(`create ${n}: HTTP ${response.status}`);
    await response.arrayBuffer();
  };
  try {
    await Promise.all(Array.from({ length: 20 }, (_, n) => create(-1 - n))); // warm-up
    let next = 0;
    const began = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < requests) await create(next++);
      }),
    );
    return requests / (Number(process.hrtime.bigint() - began) / 1e9);
  } finally {
    await emulator.stop();
  }
}

async function main(): Promise<void> {
  const requests = Number(process.argv[2] ?? 2000);
  const concurrencies = (process.argv[3] ?? "1,16").split(",").map(Number);
  const rounds = Number(process.argv[4] ?? 3);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "emulator-writes-"));
  try {
    console.log(`${requests} TXT record creates per measurement, median of ${rounds}`);
    console.log("concurrency | in memory (req/s) | --state (req/s)");
    for (const concurrency of concurrencies) {
      const memory: number[] = [];
      const persisted: number[] = [];
      for (let round = 0; round < rounds; round++) {
        memory.push(await measure(requests, concurrency));
        persisted.push(
          await measure(requests, concurrency, path.join(dir, `state-${concurrency}-${round}.json`)),
        );
      }
      const cells = [concurrency, median(memory), median(persisted)].map((n) => n.toFixed(0));
      console.log(`${cells[0].padStart(11)} | ${cells[1].padStart(17)} | ${cells[2]}`);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
