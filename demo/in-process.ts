import { promises as fs } from "node:fs";
import * as path from "node:path";
import { load } from "js-yaml";
import {
  destroyRun,
  Emulator,
  programFile,
  ProgramRun,
  runProgram,
  RunOptions,
  startEmulator,
} from "../testing";
import { outputsTable, REPO_ROOT } from "./lifecycle";

/** Starts every line of the in-process demo, so that nothing in it reads as if Pulumi had run. */
export const IN_PROCESS = "[in-process, no Pulumi engine]";

/**
 * The demo without a Pulumi CLI: the root project's program (the basic example, with the local
 * stack's settings) run through the package's test kit against an emulator started on free
 * ports in this process: a preview, then a live run (dynamic resources executed as the provider
 * host executes them, the Cloudflare records written to the emulator's stand-in, the verification
 * through its DNS server), the same table as the CLI's demo, then everything deleted again. No
 * Pulumi engine: no state, no diff, nothing deployed anywhere.
 */
export async function runInProcess(
  log: (line: string) => void = console.log,
  stackFile = path.join(REPO_ROOT, "Pulumi.local.yaml"),
): Promise<number> {
  const say = (line: string) => log(`${IN_PROCESS} ${line}`);
  const emulator = await startEmulator();
  try {
    say(
      `emulator: email API ${emulator.emailApi.url}, Cloudflare ${emulator.cloudflare.url}, DNS ${emulator.dns.address}`,
    );
    let options: Pick<RunOptions, "config" | "project" | "stack">;
    try {
      options = await localStack(stackFile, emulator);
    } catch (error) {
      say(`failed: ${stackFile}: ${(error as Error).message.split("\n")[0]}`);
      return 1;
    }
    const program = programFile(path.join(REPO_ROOT, "examples/basic/index.ts"));
    const settings: Omit<RunOptions, "mode"> = { ...options, emulator, timeoutMs: 120_000 };

    say("preview (the program under Pulumi's mocks; nothing is created):");
    const preview = await runProgram(program, { ...settings, mode: "preview" });
    if (!succeeded(preview, say)) return 1;
    for (const registration of preview.registrations.filter((r) => r.custom)) {
      say(`  + ${registration.type} ${registration.name}`);
    }

    say("live run (each resource created against the emulator, as `pulumi up` would, without its engine):");
    const live = await runProgram(program, { ...settings, mode: "live" });
    if (!succeeded(live, say)) return 1;
    const outputs = Object.fromEntries(Object.entries(live.outputs).map(([key, value]) => [key, { value }]));
    for (const line of outputsTable(outputs).split("\n")) say(line);

    const destroyed = await destroyRun(live, { ...settings, mode: "live" });
    if (destroyed.errors.length > 0) {
      for (const error of destroyed.errors) say(`clean-up failed: ${error.subject}: ${error.message}`);
      return 1;
    }
    say(`cleaned up: ${destroyed.deleted.length} resources deleted from the emulator`);
    return 0;
  } finally {
    await emulator.stop();
  }
}

/** The `local` stack's settings (Pulumi.local.yaml) with the emulator's actual addresses. */
async function localStack(
  stackFile: string,
  emulator: Emulator,
): Promise<Pick<RunOptions, "config" | "project" | "stack">> {
  const settings = load(await fs.readFile(stackFile, "utf8")) as { config?: unknown } | null;
  const stackConfig = settings?.config;
  if (typeof stackConfig !== "object" || stackConfig === null || Array.isArray(stackConfig)) {
    throw new Error("expected a `config:` map of the stack's settings, as `pulumi config set` writes it");
  }
  const config = Object.fromEntries(Object.entries(stackConfig).map(([key, value]) => [key, String(value)]));
  return {
    project: "email-delivery",
    stack: "local",
    config: {
      ...config,
      "emailDelivery:baseUrl": emulator.emailApi.url,
      "emailDelivery:dnsResolver": emulator.dns.address,
      "cloudflare:baseUrl": emulator.cloudflare.url,
      "email-delivery:cloudflareZoneId": emulator.cloudflare.zones[0].id,
    },
  };
}

/** Whether a run went through; else says what failed. */
function succeeded(run: ProgramRun<string>, say: (line: string) => void): boolean {
  for (const error of run.errors) say(`failed: ${error.subject ? `${error.subject}: ` : ""}${error.message}`);
  return run.errors.length === 0;
}
