import { spawnSync } from "node:child_process";
import { cachedNpmPackageCli, pulumiOnPath } from "../../demo/pulumi-cli";

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
