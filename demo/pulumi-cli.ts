import { promises as dns } from "node:dns";
import { accessSync, constants } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PulumiCommand } from "@pulumi/pulumi/automation";

export type CliLookup =
  { found: true; command: PulumiCommand; source: string } | { found: false; reason: string };

/** How long fetching the CLI through the `pulumi` npm package may take (it downloads ~100 MB). */
const DOWNLOAD_TIMEOUT_MS = 180_000;
/** How long a working CLI may take to say its version. */
const VERSION_TIMEOUT_MS = 30_000;
/** Where the `pulumi` npm package downloads the CLI from. */
const DOWNLOAD_HOST = "get.pulumi.com";

/**
 * A Pulumi CLI for the Automation API: the one on PATH, else the one the `pulumi` npm package
 * fetches (into ~/.pulumi/versions). Without network the fetch is not even tried (its host does
 * not resolve), so a machine with neither finds out at once.
 */
export async function findPulumiCli(): Promise<CliLookup> {
  const reasons: string[] = [];
  const onPath = pulumiOnPath();
  if (onPath) {
    try {
      return { found: true, command: await withTimeout(cliAt(onPath), VERSION_TIMEOUT_MS), source: onPath };
    } catch (error) {
      reasons.push(`\`${onPath}\` did not run (${firstLine(error)})`);
    }
  } else {
    reasons.push("`pulumi` is not on PATH");
  }

  const cached = cachedNpmPackageCli();
  if (!cached && !(await resolves(DOWNLOAD_HOST))) {
    reasons.push(`it cannot be downloaded either: ${DOWNLOAD_HOST} does not resolve (no internet?)`);
    return { found: false, reason: reasons.join("; ") };
  }
  try {
    const bin = cached ?? (await withTimeout(resolveThroughNpmPackage(), DOWNLOAD_TIMEOUT_MS));
    return { found: true, command: await withTimeout(cliAt(bin), VERSION_TIMEOUT_MS), source: bin };
  } catch (error) {
    reasons.push(`fetching it through the \`pulumi\` npm package failed (${firstLine(error)})`);
    return { found: false, reason: reasons.join("; ") };
  }
}

/** How to get a CLI, in one line, for a person who has none. */
export function installHint(command = "npm run demo"): string {
  return (
    "install the Pulumi CLI (`curl -fsSL https://get.pulumi.com | sh` on Linux and macOS, " +
    "`brew install pulumi/tap/pulumi`, `winget install pulumi` on Windows; " +
    `https://www.pulumi.com/docs/iac/download-install/) and run \`${command}\` again`
  );
}

/**
 * The `pulumi` executable on PATH, skipping `node_modules/.bin` folders: npm scripts put those
 * first, and there `pulumi` is the npm package's downloader, not a CLI.
 */
export function pulumiOnPath(pathValue = process.env.PATH ?? ""): string | undefined {
  const executable = process.platform === "win32" ? "pulumi.exe" : "pulumi";
  for (const dir of pathValue.split(path.delimiter)) {
    if (!dir || dir.split(/[\\/]/).includes("node_modules")) continue;
    const candidate = path.join(dir, executable);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** A CLI the `pulumi` npm package fetched earlier, if any (found without downloading anything). */
export function cachedNpmPackageCli(): string | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const npmPackage = require("pulumi/package.json") as { version: string };
  const version = process.env.PULUMI_VERSION || npmPackage.version;
  const home = process.env.PULUMI_HOME || path.join(os.homedir(), ".pulumi");
  const bin = path.join(
    home,
    "versions",
    version,
    "bin",
    process.platform === "win32" ? "pulumi.exe" : "pulumi",
  );
  return isExecutable(bin) ? bin : undefined;
}

/** Installations put the binary at `<root>/bin/pulumi`; the Automation API wants that root. */
function cliAt(bin: string): Promise<PulumiCommand> {
  const dir = path.dirname(bin);
  return path.basename(dir) === "bin" ? PulumiCommand.get({ root: path.dirname(dir) }) : PulumiCommand.get();
}

async function resolveThroughNpmPackage(): Promise<string> {
  // The package's own resolver: ~/.pulumi/versions/<v>/bin/pulumi, downloaded first if needed.
  // It is plain CommonJS without types.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { resolve } = require("pulumi/lib/resolve") as { resolve(): Promise<string> };
  return resolve();
}

async function resolves(host: string): Promise<boolean> {
  try {
    await withTimeout(dns.lookup(host), 3000);
    return true;
  } catch {
    return false;
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
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
