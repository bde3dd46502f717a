// The compiler that type-checks and builds this repository: TypeScript 7, the native one (devDependency
// `typescript-7`, an alias of typescript@7). It emits the same JavaScript as TypeScript 6 for about a
// third of the CPU (CONTRIBUTING.md, "Two TypeScripts"). TypeScript 6 (`typescript`) stays for what calls the
// compiler's `ts.*` API, which 7 does not have: ts-jest, typescript-eslint, editors and Pulumi's ts-node.
// Where 7's native binary does not run (a platform it has no build for, a registry mirror without the
// `@typescript/*` packages, node_modules from before it was added, a cache folder mounted noexec),
// TypeScript 6 compiles instead, with a warning: a user's git install still builds.
// `node packaging/tsc.js <tsc arguments>` runs it (`npm run typecheck`). Both packages install a `tsc`
// command, so node_modules/.bin/tsc may be either.
// Plain JavaScript: the build runs it before anything is compiled.
const { spawnSync } = require("node:child_process");
const path = require("node:path");

/** The command-line entry point and version of `pkg` (its bin is not among its exports). */
function installed(pkg) {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath);
  return {
    tsc: path.join(path.dirname(manifestPath), manifest.bin.tsc),
    version: `typescript@${manifest.version}`,
  };
}

/**
 * TypeScript 7 if its compiler runs here: asked for its version (about 75 ms), which fails however
 * the binary is missing or unusable. Else TypeScript 6, with why 7 was not used.
 */
function choose() {
  let reason;
  try {
    const native = installed("typescript-7");
    const probe = spawnSync(process.execPath, [native.tsc, "--version"], { encoding: "utf8" });
    if (probe.status === 0 && probe.stdout.startsWith("Version 7.")) return native;
    // What it said: the error Node printed (after the source line and `<ref *1>` marks), else its last line.
    const lines = `${probe.stderr ?? ""}`.split("\n").filter((line) => line.trim());
    const errorLine = lines.find((line) => /\w*Error: /.test(line));
    reason =
      probe.error?.message ??
      errorLine?.slice(errorLine.search(/\w*Error: /)) ??
      lines.at(-1) ??
      `\`tsc --version\` exited with ${probe.status ?? probe.signal}`;
  } catch (error) {
    reason = error.message.split("\n")[0]; // typescript-7 itself is not installed
  }
  return { ...installed("typescript"), fallbackReason: reason };
}

let chosen;

/**
 * The compiler to run, chosen once per process: `{ tsc, version, fallbackReason? }`, `tsc` its
 * command-line entry point, `version` which compiler it is (`typescript@7.0.2`, which the build's
 * stamp hashes), `fallbackReason` set when it is TypeScript 6 because 7 does not run here.
 */
function compiler() {
  chosen ??= choose();
  return chosen;
}

let warned = false;

/** Says, once, on stderr, that TypeScript 6 compiles and why: called where a compile is about to run. */
function warnOnFallback() {
  const { version, fallbackReason } = compiler();
  if (fallbackReason === undefined || warned) return;
  warned = true;
  process.emitWarning(
    `TypeScript 7's native compiler does not run on ${process.platform}-${process.arch} (${fallbackReason}); ` +
      `compiling with ${version} instead (slower, same JavaScript). \`npm ci\` installs 7 where it has a build.`,
  );
}

if (require.main === module) {
  warnOnFallback();
  const { status, error } = spawnSync(process.execPath, [compiler().tsc, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  if (error) throw error;
  process.exitCode = status ?? 1;
}

module.exports = { compiler, warnOnFallback };
