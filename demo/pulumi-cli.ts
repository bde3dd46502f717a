import * as path from "node:path";
import { PulumiCommand } from "@pulumi/pulumi/automation";

export type CliLookup =
  { found: true; command: PulumiCommand; source: string } | { found: false; reason: string };

/** How long fetching the CLI through the `pulumi` npm package may take (it downloads ~100 MB). */
const DOWNLOAD_TIMEOUT_MS = 180_000;

/**
 * A Pulumi CLI for the Automation API: the one on PATH, else the one the `pulumi` npm package
 * fetches (into ~/.pulumi/versions). Without network the fetch fails in well under a second, so
 * a machine with neither finds out at once.
 */
export async function findPulumiCli(): Promise<CliLookup> {
  const reasons: string[] = [];
  try {
    const command = await PulumiCommand.get();
    return { found: true, command, source: "PATH" };
  } catch (error) {
    const notFound = /ENOENT|code: -2\b/.test(String((error as Error)?.message ?? error));
    reasons.push(
      notFound ? "`pulumi` is not on PATH" : `\`pulumi\` on PATH did not run (${firstLine(error)})`,
    );
  }
  try {
    const bin = await withTimeout(resolveThroughNpmPackage(), DOWNLOAD_TIMEOUT_MS);
    const command = await PulumiCommand.get({ root: path.dirname(path.dirname(bin)) });
    return { found: true, command, source: bin };
  } catch (error) {
    reasons.push(`fetching it through the \`pulumi\` npm package failed (${firstLine(error)})`);
  }
  return { found: false, reason: reasons.join("; ") };
}

/** What to tell a person who has no CLI. */
export function installMessage(reason: string, command = "npm run demo"): string {
  return [
    `No Pulumi CLI: ${reason}.`,
    `Install it, then run \`${command}\` again:`,
    "  curl -fsSL https://get.pulumi.com | sh     # Linux and macOS",
    "  brew install pulumi/tap/pulumi             # macOS with Homebrew",
    "  winget install pulumi                      # Windows",
    "  (see https://www.pulumi.com/docs/iac/download-install/)",
    "Without a CLI, `npm test` and `npm run emulator` still work.",
  ].join("\n");
}

async function resolveThroughNpmPackage(): Promise<string> {
  // The package's own resolver: returns ~/.pulumi/versions/<v>/bin/pulumi, downloading it first
  // if needed. It is plain CommonJS without types.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { resolve } = require("pulumi/lib/resolve") as { resolve(): Promise<string> };
  return resolve();
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (
    message
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? "unknown error"
  );
}
