import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/**
 * Whether a Pulumi CLI can be used here, decided synchronously (jest registers tests
 * synchronously): one on PATH, or one the `pulumi` npm package fetched before. Never downloads.
 */
export function pulumiCliHere(): { available: boolean; reason: string } {
  const onPath = spawnSync("pulumi", ["version"], { encoding: "utf8", timeout: 10_000 });
  if (onPath.status === 0) return { available: true, reason: `pulumi ${onPath.stdout.trim()} on PATH` };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const version = (require("pulumi/package.json") as { version: string }).version;
  const cached = path.join(
    process.env.PULUMI_HOME ?? path.join(os.homedir(), ".pulumi"),
    "versions",
    version,
    "bin",
    "pulumi",
  );
  if (existsSync(cached)) return { available: true, reason: `pulumi ${version} fetched by the npm package` };
  return {
    available: false,
    reason: "no Pulumi CLI on this machine (none on PATH, none fetched by the `pulumi` npm package)",
  };
}
