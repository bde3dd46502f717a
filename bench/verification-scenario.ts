/**
 * One verification scenario of `npm run bench`, in a process of its own (started by
 * bench/verification.ts with BENCH_SCENARIO = {env, projectDir, validAfterSeconds}): the installed
 * package's providers configured for the emulator in `env`; a domain created; a verification with
 * the default poll settings created for it, whose records are published through the Cloudflare
 * stand-in (which the check resolves against) T seconds after the create starts, or before it
 * starts when T = 0 (the Domain component's order: records, then verification). Prints the figures
 * as one JSON line.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import type { DnsRecord } from "../provider/client";
import type { VerificationInputs } from "../provider/inputs";
import { waitTimes } from "../provider/verification/wait";
import { connectEmulator } from "./emulator-process";
import { publishRecords } from "./records";
import { BenchProviders, configureProviders, since } from "./setup";
import type { VerificationFigures } from "./verification";

async function main(): Promise<void> {
  const { env, projectDir, validAfterSeconds } = JSON.parse(process.env.BENCH_SCENARIO ?? "{}") as {
    env: Record<string, string>;
    projectDir: string;
    validAfterSeconds: number;
  };
  const emulator = connectEmulator(env);
  const providers = createRequire(path.join(projectDir, "/"))(
    "pulumi-email-delivery/providers",
  ) as BenchProviders;
  const { domainProvider, verificationProvider } = providers;
  await configureProviders(emulator, providers);
  const name = `verify${validAfterSeconds}.${emulator.cloudflare.zones[0].name}`;
  const domain = await domainProvider.create((await domainProvider.check!({}, { name })).inputs!);
  const records = domain.outs!.dnsRecords as DnsRecord[];
  // The defaults users get: no poll setting given.
  const checked = await verificationProvider.check!({}, { domainId: Number(domain.id) });
  if (checked.failures?.length) throw new Error(JSON.stringify(checked.failures));
  const times = waitTimes(checked.inputs as unknown as VerificationInputs);

  // The wait reports progress through pulumi.log.info, which prints "info: [runtime] …" without an engine.
  const progress: string[] = [];
  const consoleLog = console.log;
  console.log = (...args: unknown[]) => {
    const line = args.map(String).join(" ");
    if (line.startsWith("info: [runtime]")) progress.push(line);
    else process.stderr.write(`${line}\n`);
  };
  await emulator.requests.clear();
  let validAtMs = 0;
  let publishing: Promise<void> = Promise.resolve();
  if (validAfterSeconds === 0) await publishRecords(emulator, records);
  const start = performance.now();
  const wallStart = Date.now();
  if (validAfterSeconds > 0) {
    publishing = new Promise<void>((resolve, reject) =>
      setTimeout(() => {
        publishRecords(emulator, records).then(() => {
          validAtMs = since(start);
          resolve();
        }, reject);
      }, validAfterSeconds * 1000),
    );
  }
  let created: Awaited<ReturnType<BenchProviders["verificationProvider"]["create"]>>;
  try {
    created = await verificationProvider.create(checked.inputs!);
  } finally {
    console.log = consoleLog;
  }
  const returnedAtMs = since(start);
  await publishing;

  const entries = await emulator.requests.all();
  const checks = entries
    .filter((entry) => entry.endpoint === "domains/check")
    .map((entry) => Date.parse(entry.at) - wallStart);
  const otherRequests: Record<string, number> = {};
  for (const entry of entries) {
    if (entry.service !== "email-api" || entry.endpoint === "domains/check") continue;
    otherRequests[entry.endpoint] = (otherRequests[entry.endpoint] ?? 0) + 1;
  }
  const figures: VerificationFigures = {
    validAfterSeconds,
    pollIntervalSeconds: times.pollIntervalMs / 1000,
    pollCapMs: times.maxPollIntervalMs,
    clock: "real",
    validAtMs,
    returnedAtMs,
    delayMs: returnedAtMs - validAtMs,
    polls: progress.length + 1,
    checkRequests: checks.length,
    otherRequests,
    recordRequests: entries.filter((entry) => entry.service !== "email-api").length,
    checkTimesMs: checks,
    lastIntervalMs: checks.length > 1 ? checks[checks.length - 1] - checks[checks.length - 2] : NaN,
    verified: created.outs?.verified === true,
  };
  await domainProvider.delete!(domain.id, domain.outs!);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
