/**
 * Checks the parts of `@pulumi/pulumi` the kit uses beyond its public API
 * (testing/pulumi-internals.ts) against other versions than the installed one (which
 * tests/testing/pulumi-internals.test.ts checks): each is installed from the npm registry into a
 * temporary folder and checked there, in a process of its own, as the pinned test checks the
 * installed one. Not part of `npm test` (an install is 20–30 s per version); run it before adding a
 * version to CHECKED_PULUMI_VERSIONS (testing/pulumi-sdk-check.ts):
 *
 *   npx tsx tests/support/pulumi-versions.ts 3.248.0 3.276.0
 *
 * Prints one line per version and exits 1 if any has a problem.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { sdkAt } from "../../testing/pulumi-internals";
import { pulumiSdkProblems } from "./pulumi-sdk-checks";

/** In the child: checks the @pulumi/pulumi installed under `folder`, prints the problems as JSON. */
async function checkInstalled(folder: string): Promise<void> {
  const entry = require.resolve("@pulumi/pulumi", { paths: [folder] });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the version under check, by path
  const sdk = sdkAt(require(entry), entry);
  const problems = await pulumiSdkProblems(sdk);
  process.stdout.write(`${JSON.stringify({ version: sdk.version, problems })}\n`);
}

function checkVersion(version: string): string[] {
  const folder = mkdtempSync(path.join(tmpdir(), `kit-pulumi-${version}-`));
  try {
    writeFileSync(path.join(folder, "package.json"), '{ "private": true }\n');
    execFileSync(
      "npm",
      [
        "install",
        `@pulumi/pulumi@${version}`,
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--loglevel=error",
      ],
      { cwd: folder, stdio: ["ignore", "ignore", "inherit"] },
    );
    const output = execFileSync(process.execPath, [...process.execArgv, __filename, "--check", folder], {
      encoding: "utf8",
    });
    const result = JSON.parse(output.trim().split("\n").pop()!) as { version: string; problems: string[] };
    if (result.version !== version) return [`installed ${result.version}, not ${version}`];
    return result.problems;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === "--check") {
  void checkInstalled(args[1]!);
} else {
  if (args.length === 0) {
    console.error("usage: npx tsx tests/support/pulumi-versions.ts VERSION…");
    process.exit(2);
  }
  let failed = false;
  for (const version of args) {
    const problems = checkVersion(version);
    failed ||= problems.length > 0;
    console.log(
      problems.length === 0 ? `${version}: ok` : `${version}:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
  }
  process.exit(failed ? 1 : 0);
}
