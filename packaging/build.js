// `npm run build` (and so `prepare`): dist/ from provider/, emulator/ and testing/ with tsc (./tsc.js), the
// doctor command and the providers as one file each (./bundles.js), then a stamp of what it was
// built from. A build whose stamp matches the sources is not made again (`--force` makes it):
// npm runs `prepare` twice for a git install, and jest's setup right after `npm ci` would compile
// the package a second time.
// Plain JavaScript: it runs before anything is compiled, also in a clone npm prepares for a git install.
const { createHash } = require("node:crypto");
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { writeBundles } = require("./bundles");
const { compiler, warnOnFallback } = require("./tsc");

const ROOT = path.resolve(__dirname, "..");
/** In dist/, beside the folders `files` in package.json ships: never packed. */
const STAMP = path.join("dist", ".build-stamp");
/** What the build reads besides its source folders: a change to any of them makes a new build. */
const CONFIG_FILES = ["package.json", "tsconfig.json", "tsconfig.build.json"];
/** Read when present: the versions of got, zod and tldts the bundles hold. */
const LOCK_FILE = "package-lock.json";
/** The build's own steps (beside this file): a change to how it builds makes a new build too. */
const BUILD_SCRIPTS = ["build.js", "bundles.js", "tsc.js"];
/** The folders the build compiles (tsconfig.build.json "include"). */
const SOURCE_FOLDERS = ["provider", "emulator", "testing"];

/** A hash of every file the build in `root` compiles from, and of the compiler and its version. */
function sourceHash(root = ROOT, compilerVersion = compiler().version) {
  const hash = createHash("sha256");
  const sources = SOURCE_FOLDERS.flatMap((folder) =>
    fs.existsSync(path.join(root, folder))
      ? fs
          .readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
      : [],
  ).sort();
  const lock = fs.existsSync(path.join(root, LOCK_FILE)) ? [LOCK_FILE] : [];
  for (const file of [...CONFIG_FILES, ...lock, ...sources]) {
    hash
      .update(`${file}\0`)
      .update(fs.readFileSync(path.join(root, file)))
      .update("\0");
  }
  for (const script of BUILD_SCRIPTS) hash.update(fs.readFileSync(path.join(__dirname, script))).update("\0");
  hash.update(compilerVersion);
  return hash.digest("hex");
}

/** Whether `root`'s dist/ was built from its sources as they are now. */
function buildIsCurrent(root = ROOT) {
  try {
    return fs.readFileSync(path.join(root, STAMP), "utf8") === sourceHash(root);
  } catch {
    return false;
  }
}

/** Writes the stamp of `root`'s sources as they are now, for a build made from them. */
function writeStamp(hash, root = ROOT) {
  fs.writeFileSync(path.join(root, STAMP), hash);
}

function build() {
  fs.rmSync(path.join(ROOT, "dist"), { recursive: true, force: true }); // no file of a deleted source survives
  const hash = sourceHash(); // before compiling: an edit made meanwhile makes the next check build again
  warnOnFallback();
  execFileSync(process.execPath, [compiler().tsc, "-p", "tsconfig.build.json"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  writeBundles();
  writeStamp(hash);
}

if (require.main === module) {
  if (process.argv.includes("--force") || !buildIsCurrent()) build();
  else
    console.log("dist/ is up to date: built from these sources (npm run build -- --force builds it again)");
}

module.exports = { build, buildIsCurrent, sourceHash, writeStamp };
