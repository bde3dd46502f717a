// The package's two start-up paths as one file each, made from the compiled code with esbuild
// by the build after tsc:
// - the doctor command: dist/provider/doctor/command.bundle.js from doctor/main.js, got, zod and
//   tldts included. A command run by hand, in CI and at 3 a.m. should answer about as fast as `dig`;
// - the providers (`pulumi-email-delivery/providers`, which every stored state loads):
//   dist/provider/providers.bundle.js from providers-module.js, got, zod and tldts included,
//   Pulumi's SDK not (the provider host's own is used). Every Pulumi command starts a fresh
//   provider process, which loads them before its first answer.
// Why: unbundled, Node spends most of such a start finding and reading got's and zod's ~200 files
// (got through Node's ES module loader); one file, read once and compiled from a code cache
// (provider/code-cache.ts), takes about half the time (docs/performance.md).
// The package's other entries stay unbundled: a program loads them once per `pulumi` command.
// Where esbuild's native binary does not run (as for TypeScript 7, packaging/tsc.js), the build
// says so and ships no bundle; bin.js and providers-entry.js then load the modules as they are,
// slower and otherwise the same.
// Plain JavaScript: the build runs it before anything else is compiled.
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
/** Each bundle: what it is made from, where it goes, and what it leaves to be required. */
const BUNDLES = [
  {
    name: "the doctor command",
    entry: path.join("dist", "provider", "doctor", "main.js"),
    bundle: path.join("dist", "provider", "doctor", "command.bundle.js"),
    external: [],
  },
  {
    name: "the providers",
    entry: path.join("dist", "provider", "providers-module.js"),
    bundle: path.join("dist", "provider", "providers.bundle.js"),
    // The SDK's log, loaded at a provider's first line (dynamic/engine-log.ts): the host's own.
    external: ["@pulumi/*"],
  },
];

/** The license notice of each package in the bundle, as MIT and the like ask of a copy. */
function notices(metafile, root) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (!match) continue;
    packages.set(match[1], path.join(root, match[1]));
    // What a package's own build holds of others: tldts's dist has tldts-core's code inside.
    for (const inside of ALSO_INSIDE[path.basename(match[1])] ?? []) {
      const dir = path.join(path.dirname(match[1]), inside);
      packages.set(dir, path.join(root, dir));
    }
  }
  const blocks = [...packages.values()].sort().map((dir) => {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    const licenseFile = fs.readdirSync(dir).find((name) => /^licen[cs]e/i.test(name));
    const text = licenseFile ? fs.readFileSync(path.join(dir, licenseFile), "utf8").trim() : "";
    return `${manifest.name}@${manifest.version} (${manifest.license})\n${text}`.replaceAll("*/", "* /");
  });
  const data = [...packages.keys()].some((dir) => path.basename(dir) === "tldts")
    ? `\n\n${PUBLIC_SUFFIX_LIST}`
    : "";
  return `/*! Packages included in this file, and their licenses:\n\n${blocks.join("\n\n")}${data}\n*/\n`;
}

/** Packages whose published files hold others' code, by name. */
const ALSO_INSIDE = { tldts: ["tldts-core"] };

/** The data tldts holds: the Public Suffix List, under its own license. */
const PUBLIC_SUFFIX_LIST =
  "The Public Suffix List (https://publicsuffix.org/list/), inside tldts (MPL-2.0)\n" +
  "This Source Code Form is subject to the terms of the Mozilla Public License, v. 2.0. If a copy of\n" +
  "the MPL was not distributed with this file, You can obtain one at https://mozilla.org/MPL/2.0/.";

/** Writes the bundles; false (with a warning) where esbuild does not run here. */
function writeBundles(root = ROOT) {
  let esbuild;
  try {
    esbuild = require("esbuild");
    esbuild.transformSync(""); // starts the native binary: throws where it is missing or does not run
  } catch (error) {
    process.emitWarning(
      `esbuild does not run on ${process.platform}-${process.arch} (${error.message.split("\n")[0]}); ` +
        "the doctor command and the providers ship unbundled (they start more slowly, and work the same).",
    );
    return false;
  }
  for (const { entry, bundle, external } of BUNDLES) {
    const options = {
      absWorkingDir: root,
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      target: "node20",
      format: "cjs",
      external,
      write: false,
      metafile: true,
      logLevel: "silent",
    };
    // Twice: the second time with the notices of what the first found it includes.
    const { metafile } = esbuild.buildSync(options);
    const [output] = esbuild.buildSync({ ...options, footer: { js: notices(metafile, root) } }).outputFiles;
    fs.writeFileSync(path.join(root, bundle), output.contents);
  }
  return true;
}

module.exports = { writeBundles, BUNDLES };
