import { spawnSync } from "node:child_process";
import type { PulumiCommand } from "@pulumi/pulumi/automation";
import { DemoStack, openDemoStack } from "../../demo/lifecycle";
import { cachedNpmPackageCli, findPulumiCli, pulumiOnPath } from "../../demo/pulumi-cli";
import type { Emulator } from "../../emulator";
import { useEmulator } from "./emulator";

/**
 * Whether a Pulumi CLI can be used here, decided synchronously (jest registers tests
 * synchronously) and without downloading anything: a working one on PATH (not npm's
 * `node_modules/.bin` downloader), or one the `pulumi` npm package fetched before.
 */
export function pulumiCliHere(): { available: boolean; reason: string } {
  for (const bin of [pulumiOnPath(), cachedNpmPackageCli()]) {
    if (!bin) continue;
    const version = spawnSync(bin, ["version"], { encoding: "utf8", timeout: 30_000 });
    if (version.status === 0) return { available: true, reason: `pulumi ${version.stdout.trim()} at ${bin}` };
  }
  return {
    available: false,
    reason: "no Pulumi CLI on this machine (none on PATH, none fetched by the `pulumi` npm package)",
  };
}

/** What a test in {@link describeWithPulumiCli} gets. */
export interface CliSuite {
  emulator: () => Emulator;
  /**
   * The demo's project (the package installed from its tarball) with a throwaway stack through the
   * CLI, against the suite's emulator; disposed after the suite.
   */
  openDemo(): Promise<DemoStack>;
}

/**
 * A describe block that needs the Pulumi CLI: run where one is found, skipped with the reason
 * where none is, and failing instead when `EMAIL_DELIVERY_E2E=require` (CI, which installs the
 * CLI, sets it, so a detection slip fails the run rather than skipping).
 */
export function describeWithPulumiCli(title: string, body: (suite: CliSuite) => void): void {
  const cli = pulumiCliHere();
  if (!cli.available && process.env.EMAIL_DELIVERY_E2E === "require") {
    throw new Error(`EMAIL_DELIVERY_E2E=require, but ${cli.reason}`);
  }
  if (!cli.available) console.warn(`${title}: skipped, ${cli.reason}. Install the Pulumi CLI to run it.`);
  (cli.available ? describe : describe.skip)(
    `${title}${cli.available ? "" : ` — skipped: ${cli.reason}`}`,
    () => {
      const emulator = useEmulator();
      let command: PulumiCommand;
      const opened: DemoStack[] = [];
      beforeAll(async () => {
        const found = await findPulumiCli();
        if (!found.found) throw new Error(found.reason);
        command = found.command;
      });
      afterAll(() => Promise.all(opened.map((demo) => demo.dispose())));
      body({
        emulator,
        async openDemo() {
          const demo = await openDemoStack(command, emulator(), { build: false }); // jest's setup built dist/
          opened.push(demo);
          return demo;
        },
      });
    },
  );
}
