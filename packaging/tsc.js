// The compiler that type-checks and builds this repository: TypeScript 7, the native one (devDependency
// `typescript-7`, an alias of typescript@7). It emits the same JavaScript as TypeScript 6 for about a
// third of the CPU (CONTRIBUTING.md, "Two TypeScripts"). TypeScript 6 (`typescript`) stays for what calls the
// compiler's `ts.*` API, which 7 does not have: ts-jest, typescript-eslint, editors and Pulumi's ts-node.
// Where 7's native binary is missing (a platform it has no build for, a registry mirror without the
// `@typescript/*` packages, node_modules from before it was added), TypeScript 6 compiles instead,
// with a warning: a user's git install still builds.
// `node packaging/tsc.js <tsc arguments>` runs it (`npm run typecheck`). Both packages install a `tsc`
// command, so node_modules/.bin/tsc may be either.
// Plain JavaScript: the build runs it before anything is compiled.
const { spawnSync } = require("node:child_process");
const path = require("node:path");

/** The command-line entry point and version of `pkg` (its bin is not among its exports). */
function compiler(pkg) {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath);
  return {
    tsc: path.join(path.dirname(manifestPath), manifest.bin.tsc),
    version: `typescript@${manifest.version}`,
  };
}

function choose() {
  try {
    const native = compiler("typescript-7");
    // What TypeScript 7's own launcher looks for; checked here so that a miss falls back instead of failing.
    require.resolve(`@typescript/typescript-${process.platform}-${process.arch}/package.json`, {
      paths: [path.dirname(native.tsc)],
    });
    return native;
  } catch (error) {
    const fallback = compiler("typescript");
    process.emitWarning(
      `TypeScript 7's native compiler is not installed for ${process.platform}-${process.arch} ` +
        `(${error.message.split("\n")[0]}); compiling with ${fallback.version} instead (slower, same JavaScript).`,
    );
    return fallback;
  }
}

const chosen = choose();

/** The compiler's command-line entry point. */
const TSC = chosen.tsc;

/** Which compiler and version it is (`typescript@7.0.2`), which the build's stamp records. */
const TSC_VERSION = chosen.version;

if (require.main === module) {
  const { status, error } = spawnSync(process.execPath, [TSC, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  if (error) throw error;
  process.exitCode = status ?? 1;
}

module.exports = { TSC, TSC_VERSION };
