import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../packaging/clean-clone";

/**
 * The doctor's start-up: the build's one-file command (packaging/bundles.js), run by bin.js
 * through V8's code cache (provider/code-cache.ts). Each run here is its own Node process, as a
 * user's command is: the cache is written when a process exits and read by the next.
 */

const CODE_CACHE = path.join(REPO_ROOT, "dist/provider/code-cache.js");
const BUNDLE = path.join(REPO_ROOT, "dist/provider/doctor/command.bundle.js");

let work: string;
beforeEach(() => {
  work = mkdtempSync(path.join(tmpdir(), "code-cache-"));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** Runs `file` through the code cache kept in `cacheDir`, in a new process: what it printed, then the cache's use. */
function run(file: string, cacheDir: string, writeAfterLoad = false): string[] {
  const options = JSON.stringify({ cacheDir, writeAfterLoad });
  const script = `const { use, exports } = require(${JSON.stringify(CODE_CACHE)}).runWithCodeCache(${JSON.stringify(file)}, ${options}); if (exports.answer !== 42 && exports.answer !== 43) throw new Error("exports"); console.log(use);`;
  return execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }).trim().split("\n");
}

function writeProgram(name: string, body: string): string {
  const file = path.join(work, name);
  writeFileSync(file, body);
  return file;
}

const PROGRAM = `const os = require("node:os");
module.exports.answer = 42;
console.log(typeof os.tmpdir, __filename.endsWith("program.js"), path(__dirname), module.exports.answer, this === module.exports);
function path(dir) { return require("node:path").basename(dir).startsWith("code-cache-"); }
`;

it("writes the cache at the first run, runs from it at the next, and the program runs as a CommonJS module either way", () => {
  const program = writeProgram("program.js", PROGRAM);
  const cacheDir = path.join(work, "cache");
  expect(run(program, cacheDir)).toEqual(["function true true 42 true", "written"]);
  const [cacheFile] = readdirSync(cacheDir);
  expect(cacheFile).toMatch(/^program-[0-9a-f]{32}\.v8$/);
  // The user's own: the folder and the file open to no one else.
  expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
  expect(statSync(path.join(cacheDir, cacheFile!)).mode & 0o777).toBe(0o600);
  expect(run(program, cacheDir)).toEqual(["function true true 42 true", "used"]);
});

it("writes the cache once the program has run too, when asked: a process killed later leaves it", () => {
  const program = writeProgram("program.js", `${PROGRAM}process.kill(process.pid, "SIGKILL");\n`);
  const cacheDir = path.join(work, "cache");
  expect(() => run(program, cacheDir)).toThrow(); // killed: no exit, no cache
  expect(readdirSync(cacheDir)).toEqual([]);
  // Killed after it ran (the kill a tick later): the cache written at load is there.
  writeFileSync(program, `${PROGRAM}setImmediate(() => process.kill(process.pid, "SIGKILL"));\n`);
  expect(() => run(program, cacheDir, true)).toThrow();
  expect(readdirSync(cacheDir)).toHaveLength(1);
});

it("a changed program never meets the old cache: it is compiled from its source, under a name of its own", () => {
  const program = writeProgram("program.js", PROGRAM);
  const cacheDir = path.join(work, "cache");
  run(program, cacheDir);
  writeFileSync(program, PROGRAM.replace("answer = 42", "answer = 43"));
  expect(run(program, cacheDir)).toEqual(["function true true 43 true", "written"]);
  expect(readdirSync(cacheDir)).toHaveLength(2);
});

it("a cache file V8 rejects (damaged, or another program's) is compiled past and written anew", () => {
  const program = writeProgram("program.js", PROGRAM);
  const cacheDir = path.join(work, "cache");
  run(program, cacheDir);
  const cacheFile = path.join(cacheDir, readdirSync(cacheDir)[0]!);
  writeFileSync(cacheFile, Buffer.from("not V8's code cache at all"));
  expect(run(program, cacheDir)).toEqual(["function true true 42 true", "written"]);
  expect(run(program, cacheDir)).toEqual(["function true true 42 true", "used"]);
});

it("a cache damaged in place (its length kept) is never given to V8: compiled past and written anew", () => {
  // V8 checks a cache against the source, not its own data: damaged data it accepts stops the process.
  const program = writeProgram("program.js", PROGRAM);
  const cacheDir = path.join(work, "cache");
  run(program, cacheDir);
  const cacheFile = path.join(cacheDir, readdirSync(cacheDir)[0]!);
  const bytes = readFileSync(cacheFile);
  bytes.fill(0, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 64);
  writeFileSync(cacheFile, bytes);
  expect(run(program, cacheDir)).toEqual(["function true true 42 true", "written"]);
  expect(run(program, cacheDir)).toEqual(["function true true 42 true", "used"]);
  // The data whole, its hash not: V8 would take it; the hash keeps it from V8 all the same.
  const whole = readFileSync(cacheFile);
  whole[0] ^= 0xff;
  writeFileSync(cacheFile, whole);
  expect(run(program, cacheDir)).toEqual(["function true true 42 true", "written"]);
});

it("a new cache takes away the same file's caches written over a month ago, and only those", () => {
  const program = writeProgram("program.js", PROGRAM);
  const cacheDir = path.join(work, "cache");
  mkdirSync(cacheDir, { mode: 0o700 });
  const old = path.join(cacheDir, `program-${"a".repeat(32)}.v8`);
  const recent = path.join(cacheDir, `program-${"b".repeat(32)}.v8`);
  const another = path.join(cacheDir, `other-${"c".repeat(32)}.v8`);
  for (const file of [old, recent, another]) writeFileSync(file, "");
  const longAgo = new Date(Date.now() - 40 * 24 * 3600 * 1000);
  for (const file of [old, another]) utimesSync(file, longAgo, longAgo);
  expect(run(program, cacheDir)).toEqual(["function true true 42 true", "written"]);
  const left = readdirSync(cacheDir);
  expect(left).toHaveLength(3);
  expect(left).toEqual(expect.arrayContaining([path.basename(another), path.basename(recent)]));
  expect(existsSync(old)).toBe(false); // the month-old cache of this file went; another file's stays
});

describe.each([
  ["others can write to", (dir: string) => (mkdirSync(dir), chmodSync(dir, 0o777))],
  [
    "is a symlink (to a folder of the user's)",
    (dir: string) => (mkdirSync(`${dir}-real`), symlinkSync(`${dir}-real`, dir)),
  ],
  ["is a file", (dir: string) => writeFileSync(dir, "")],
])("a cache folder that %s is not used", (_case, make) => {
  it("the program runs, compiled from source, and nothing is read or written there", () => {
    const program = writeProgram("program.js", PROGRAM);
    const cacheDir = path.join(work, "cache");
    make(cacheDir);
    expect(run(program, cacheDir)).toEqual(["function true true 42 true", "off"]);
    expect(run(program, cacheDir)).toEqual(["function true true 42 true", "off"]);
    const real = existsSync(`${cacheDir}-real`) ? `${cacheDir}-real` : cacheDir;
    if (statSync(real).isDirectory()) expect(readdirSync(real)).toEqual([]);
  });
});

describe.each([
  ["the doctor command", BUNDLE, []],
  ["the providers", path.join(REPO_ROOT, "dist/provider/providers.bundle.js"), ["@pulumi/pulumi/log"]],
])("%s, built", (_what, file, sdk) => {
  it("is one file that needs nothing but Node's own modules (got, zod and tldts are inside), with their licenses", () => {
    const bundle = readFileSync(file, "utf8");
    const required = new Set([...bundle.matchAll(/\brequire\("([^"]+)"\)/g)].map((match) => match[1]!));
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    // Besides Pulumi's log for the providers: the provider host's own, loaded at a first line.
    expect([...required].filter((name) => !builtins.has(name))).toEqual(sdk);
    const notices = bundle.slice(bundle.lastIndexOf("/*! Packages included in this file"));
    for (const pkg of ["got", "zod", "tldts", "tldts-core", "@sindresorhus/is"]) {
      expect(notices).toMatch(
        new RegExp(`^${pkg}@\\d+\\.\\d+\\.\\d+ \\(MIT\\)\\n.*Permission is hereby granted`, "ms"),
      );
    }
    // The data tldts holds, under its own license.
    expect(notices).toMatch(/^The Public Suffix List .*\(MPL-2\.0\)\n.*Mozilla Public License, v\. 2\.0/m);
  });
});

describe("the built command", () => {
  it("is what bin.js runs: the files Node loads are bin.js and the cache's own, then Node's modules only", () => {
    const { stdout, stderr } = spawnSync(
      process.execPath,
      [path.join(REPO_ROOT, "dist/provider/doctor/bin.js"), "doctor", "--help"],
      {
        encoding: "utf8",
        env: { ...process.env, NODE_DEBUG: "module" },
      },
    );
    expect(stdout).toMatch(/^Usage: pulumi-email-delivery doctor <domain>/);
    const loaded = [...stderr.matchAll(/^MODULE \d+: load "([^"]+)"/gm)].map((match) =>
      path.relative(REPO_ROOT, match[1]!),
    );
    expect(loaded).toEqual(["dist/provider/doctor/bin.js", "dist/provider/code-cache.js"]);
  });
});
