import { readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * How the kit checks the parts of `@pulumi/pulumi` it uses beyond the SDK's public API (listed in
 * pulumi-internals.ts) in the SDK it runs with, and the one error it gives when one is not there.
 */

/**
 * The `@pulumi/pulumi` versions these internals were checked against: 3.248.0, the lowest of the
 * package's peer range (and the lockfile's), and 3.276.0, the newest release on 2026-11-26.
 */
export const CHECKED_PULUMI_VERSIONS: readonly string[] = ["3.248.0", "3.276.0"];

/** What the checks read: an `@pulumi/pulumi` and its files (the installed one, or a fake in a test). */
export interface PulumiSdk {
  /** Its `package.json` version. */
  readonly version: string;
  /** Where it is installed (for the error). */
  readonly root: string;
  /** The module, as `import * as pulumi from "@pulumi/pulumi"` gives it. */
  readonly pulumi: unknown;
  /** Loads `id` as the SDK's own file `from` (relative to its folder; `index.js` if not given) would. */
  load(id: string, from?: string): unknown;
  /** The process-wide store of its runtime (`globalThis.globalStore`, runtime/state.js), if made. */
  globalStore(): unknown;
}

/** One internal: what it is called in the SDK, and what is wrong with it in `sdk` (undefined: nothing). */
export interface Internal {
  readonly name: string;
  problem(sdk: PulumiSdk): string | undefined;
}

/**
 * The problems with `internals` in `sdk`, each named; none: the kit can run with it.
 */
export function internalsProblems(sdk: PulumiSdk, internals: readonly Internal[]): string[] {
  return internals.flatMap((internal) => {
    const problem = internal.problem(sdk);
    return problem === undefined ? [] : [`${internal.name}: ${problem}`];
  });
}

/** Throws one error naming the version found, what is wrong and the supported range, if anything is. */
export function assertPulumiInternals(sdk: PulumiSdk, internals: readonly Internal[]): void {
  const problems = internalsProblems(sdk, internals);
  if (problems.length === 0) return;
  throw new Error(
    `pulumi-email-delivery/testing cannot run with @pulumi/pulumi ${sdk.version} (${sdk.root}): it uses parts ` +
      `of the SDK's runtime that are not its public API, and this version does not have them as the kit ` +
      `expects:\n${problems.map((problem) => `  - ${problem}`).join("\n")}\n` +
      `The kit supports @pulumi/pulumi ${supportedPulumiRange()} (checked against ${CHECKED_PULUMI_VERSIONS.join(", ")}): ` +
      `install a version it was checked against, or a release of pulumi-email-delivery that supports this one.`,
  );
}

/** The package's peer range for `@pulumi/pulumi` (package.json), read where the kit is installed. */
export function supportedPulumiRange(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
        name?: string;
        peerDependencies?: Record<string, string>;
      };
      if (manifest.name === "pulumi-email-delivery")
        return manifest.peerDependencies?.["@pulumi/pulumi"] ?? "(none in package.json)";
    } catch {
      // no package.json here: look further up
    }
  }
  return "(see pulumi-email-delivery's package.json peerDependencies)";
}

/** `value[key]`, or undefined where `value` has no properties. */
export function property(value: unknown, key: string): unknown {
  return (typeof value === "object" && value !== null) || typeof value === "function"
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** What `load` returns, or undefined where it throws (a module not found). */
export function attempt(load: () => unknown): unknown {
  try {
    return load();
  } catch {
    return undefined;
  }
}
