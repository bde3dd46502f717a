// The doctor command as one file: dist/provider/doctor/command.bundle.js, made from the compiled
// dist/provider/doctor/main.js with esbuild, got, zod and tldts included. Run by the build after tsc.
// Why: a command run by hand, in CI and at 3 a.m. should answer about as fast as `dig`. Unbundled,
// Node spends most of the doctor's start-up finding and reading got's and zod's ~200 files (got
// through Node's ES module loader); one file, read once and compiled from a code cache
// (provider/doctor/code-cache.ts), takes about half the time (docs/performance.md, "The doctor").
// The package's other entries stay unbundled: a program loads them once per `pulumi` command.
// Where esbuild's native binary does not run (as for TypeScript 7, packaging/tsc.js), the build
// says so and ships no bundle; bin.js then loads main.js as it is, slower and otherwise the same.
// Plain JavaScript: the build runs it before anything else is compiled.
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
const ENTRY = path.join("dist", "provider", "doctor", "main.js");
const BUNDLE = path.join("dist", "provider", "doctor", "command.bundle.js");

/** The license notice of each package in the bundle, as MIT and the like ask of a copy. */
function notices(metafile, root) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) packages.set(match[1], path.join(root, match[1]));
  }
  const blocks = [...packages.values()].sort().map((dir) => {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    const licenseFile = fs.readdirSync(dir).find((name) => /^licen[cs]e/i.test(name));
    const text = licenseFile ? fs.readFileSync(path.join(dir, licenseFile), "utf8").trim() : "";
    return `${manifest.name}@${manifest.version} (${manifest.license})\n${text}`.replaceAll("*/", "* /");
  });
  return `/*! Packages included in this file, and their licenses:\n\n${blocks.join("\n\n")}\n*/\n`;
}

/** Writes the bundle; false (with a warning) where esbuild does not run here. */
function bundleDoctor(root = ROOT) {
  let esbuild;
  try {
    esbuild = require("esbuild");
    esbuild.transformSync(""); // starts the native binary: throws where it is missing or does not run
  } catch (error) {
    process.emitWarning(
      `esbuild does not run on ${process.platform}-${process.arch} (${error.message.split("\n")[0]}); ` +
        "the doctor command ships unbundled (it starts more slowly, and works the same).",
    );
    return false;
  }
  const options = {
    absWorkingDir: root,
    entryPoints: [ENTRY],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    write: false,
    metafile: true,
    logLevel: "silent",
  };
  // Twice: the second time with the notices of what the first found it includes.
  const { metafile } = esbuild.buildSync(options);
  const [output] = esbuild.buildSync({ ...options, footer: { js: notices(metafile, root) } }).outputFiles;
  fs.writeFileSync(path.join(root, BUNDLE), output.contents);
  return true;
}

module.exports = { bundleDoctor, BUNDLE };
