// The compiler that type-checks and builds this repository: TypeScript 7, the native one (devDependency
// `typescript-7`, an alias of typescript@7). Over this repository it takes about a quarter of the CPU
// TypeScript 6 takes (4 s against 17 s for `--noEmit` on 2 cores) and emits the same JavaScript.
// TypeScript 6 (`typescript`) stays for what needs its JavaScript API, which 7 does not have: ts-jest,
// typescript-eslint, editors, and Pulumi's ts-node, which also asks users' projects for a TypeScript
// below 7.
// `node packaging/tsc.js <tsc arguments>` runs it (`npm run typecheck`); both packages install a `tsc`
// command, so node_modules/.bin/tsc may be either.
// Plain JavaScript: the build runs it before anything is compiled.
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const PACKAGE = "typescript-7";
const manifest = require(`${PACKAGE}/package.json`);

/** The compiler's command-line entry point (not among the package's exports, so found from its manifest). */
const TSC = path.join(path.dirname(require.resolve(`${PACKAGE}/package.json`)), manifest.bin.tsc);

/** Its version, which the build's stamp records. */
const TSC_VERSION = manifest.version;

if (require.main === module) {
  const { status, error } = spawnSync(process.execPath, [TSC, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  if (error) throw error;
  process.exitCode = status ?? 1;
}

module.exports = { TSC, TSC_VERSION };
