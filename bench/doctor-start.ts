import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import type { BenchEmulator } from "./emulator-process";
import { median } from "./setup";
import { table } from "./table";

/**
 * How the doctor was run: as users run it (bin.js: the bundle, its code cache warm from the run
 * before, or `cold` with an empty one), the same code unbundled (main.js, which is what bin.js ran
 * before the bundle), and Node starting and exiting, which no command can beat.
 */
export type DoctorWay = "bin.js, cache warm" | "bin.js, cache cold" | "main.js, unbundled" | "node -e 0";
export const DOCTOR_WAYS: DoctorWay[] = [
  "bin.js, cache warm",
  "bin.js, cache cold",
  "main.js, unbundled",
  "node -e 0",
];

export interface DoctorStartFigures {
  way: DoctorWay;
  /** Spawn to exit of each fresh process, ms. */
  samplesMs: number[];
  medianMs: number;
}

/**
 * `pulumi-email-delivery doctor <domain> --records … --dns …` as a user at a terminal runs it: a
 * fresh process each time, in the installed project, against the emulator process, for a domain
 * whose four checks pass (one service check, then receivers' judgement over the emulator's DNS).
 * The ways in rotating order, so a drift in the machine's speed falls on each alike.
 */
export async function measureDoctorStart(
  emulator: BenchEmulator,
  projectDir: string,
  samples: number,
): Promise<DoctorStartFigures[]> {
  const env = emulator.env!;
  const name = `doctor-${process.pid}.example.com`;
  const records = await publishedDomain(emulator, name);
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "bench-doctor-"));
  const recordsFile = path.join(work, "records.json");
  await fs.writeFile(recordsFile, JSON.stringify(records));
  const doctor = path.join(projectDir, "node_modules", "pulumi-email-delivery", "dist", "provider", "doctor");
  const args = ["doctor", name, "--records", recordsFile, "--dns", env.EMULATOR_NAMESERVERS!];
  const processEnv = {
    PATH: process.env.PATH,
    EMAIL_DELIVERY_BASE_URL: emulator.emailApi.url,
    EMAIL_DELIVERY_API_KEY: emulator.emailApi.apiKey,
  };
  // The code cache lives under the temporary folder (TMPDIR): one kept for the warm runs, a new one for each cold run.
  const warmDir = path.join(work, "warm");
  await fs.mkdir(warmDir);
  const command: Record<DoctorWay, () => Promise<[string[], NodeJS.ProcessEnv]>> = {
    "bin.js, cache warm": async () => [
      [path.join(doctor, "bin.js"), ...args],
      { ...processEnv, TMPDIR: warmDir },
    ],
    "bin.js, cache cold": async () => [
      [path.join(doctor, "bin.js"), ...args],
      { ...processEnv, TMPDIR: await fs.mkdtemp(path.join(work, "cold-")) },
    ],
    "main.js, unbundled": async () => [[path.join(doctor, "main.js"), ...args], processEnv],
    "node -e 0": async () => [["-e", "0"], processEnv],
  };
  const byWay = new Map<DoctorWay, number[]>(DOCTOR_WAYS.map((way) => [way, []]));
  try {
    await timed(...(await command["bin.js, cache warm"]())); // writes the warm cache
    for (let i = 0; i < samples; i++) {
      for (let k = 0; k < DOCTOR_WAYS.length; k++) {
        const way = DOCTOR_WAYS[(i + k) % DOCTOR_WAYS.length];
        byWay.get(way)!.push(await timed(...(await command[way]())));
      }
    }
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
  return DOCTOR_WAYS.map((way) => ({ way, samplesMs: byWay.get(way)!, medianMs: median(byWay.get(way)!) }));
}

/** Spawn to exit, ms; the doctor must find every check passing (exit 0), or the figure is of something else. */
async function timed(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  await promisify(execFile)(process.execPath, args, { env });
  return performance.now() - started;
}

/** A domain created on the service with its records published in the emulator's Cloudflare zone. */
async function publishedDomain(emulator: BenchEmulator, name: string): Promise<unknown[]> {
  const created = await post(
    `${emulator.emailApi.url}/api/v1/domains/create`,
    { name },
    {
      "x-server-api-key": emulator.emailApi.apiKey,
    },
  );
  const records = (
    created as { data: { dns_records: { type: string; name: string; value: string; priority?: number }[] } }
  ).data.dns_records;
  const zone = emulator.cloudflare.zones.find((candidate) => name.endsWith(`.${candidate.name}`))!;
  for (const record of records) {
    await post(
      `${emulator.cloudflare.url}/zones/${zone.id}/dns_records`,
      { type: record.type, name: record.name, content: record.value, priority: record.priority, ttl: 1 },
      { authorization: `Bearer ${emulator.cloudflare.apiToken}` },
    );
  }
  return records;
}

async function post(url: string, body: unknown, headers: Record<string, string>): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The doctor's table: medians, each against Node's own start and against the unbundled command. */
export function formatDoctorStart(runs: DoctorStartFigures[]): string[] {
  if (runs.length === 0) return [];
  const floor = runs.find((run) => run.way === "node -e 0")!;
  const unbundled = runs.find((run) => run.way === "main.js, unbundled")!;
  return [
    "",
    "Doctor: `pulumi-email-delivery doctor <domain> --records … --dns …` in the installed project, a fresh process",
    "each sample (spawn to exit), one service check and receivers' judgement against the emulator process. Medians",
    "in ms; reported, no gate. Target for bin.js with its cache warm: under 500 ms on a quiet machine.",
    table(
      ["way", "samples", "median", "÷ main.js, unbundled", "− node -e 0"],
      runs.map((run) => [
        run.way,
        String(run.samplesMs.length),
        run.medianMs.toFixed(0),
        `${(run.medianMs / unbundled.medianMs).toFixed(2)}×`,
        run === floor ? "-" : (run.medianMs - floor.medianMs).toFixed(0),
      ]),
    ),
  ];
}
