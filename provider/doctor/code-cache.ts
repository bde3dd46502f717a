import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { createRequire, wrap } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import * as vm from "node:vm";

/**
 * How the doctor's code was compiled: from the cache of an earlier run (`used`), from source with a
 * cache written for the next run (`written`), or from source with no cache to read or write (`off`:
 * no safe folder for it).
 */
export type CodeCacheUse = "used" | "written" | "off";

/**
 * Runs `file`, a CommonJS file that requires only Node's own modules (the doctor's bundle), with
 * V8's compiled code of an earlier run where there is one. Compiling is most of what is left of
 * the doctor's start-up once its modules are one file; Node 22.1+ has such a cache of its own
 * (`module.enableCompileCache()`), Node 20 none. The cache is V8's own data, which V8 checks
 * against the source and its own version and flags and rejects when they differ; it is kept under
 * a name made of the source's hash and Node's version, so another build or Node never meets it.
 * It is written when the command exits, so it holds the functions the run compiled, not only the
 * file's top level.
 */
export function runWithCodeCache(file: string, cacheDir: string | undefined = userCacheDir()): CodeCacheUse {
  const source = fs.readFileSync(file, "utf8");
  const folder = cacheDir !== undefined && safeFolder(cacheDir) ? cacheDir : undefined;
  const cacheFile = folder && path.join(folder, `${path.basename(file, ".js")}-${cacheKey(source)}.v8`);
  const cachedData = cacheFile ? readIfPresent(cacheFile) : undefined;
  const script = new vm.Script(wrap(source), { filename: file, cachedData });
  const use: CodeCacheUse = !cacheFile
    ? "off"
    : cachedData && !script.cachedDataRejected
      ? "used"
      : "written";
  if (use === "written") process.once("exit", () => writeAtomically(cacheFile!, script.createCachedData()));
  const module = { exports: {}, id: file, filename: file, loaded: false, children: [], paths: [] };
  const compiled = script.runInThisContext() as (...args: unknown[]) => void;
  compiled.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  return use;
}

/** A folder of this user's own under the system's temporary folder, as Node's cache is. */
function userCacheDir(): string {
  return path.join(os.tmpdir(), `pulumi-email-delivery-${process.getuid?.() ?? os.userInfo().username}`);
}

/**
 * Whether `dir` is a folder only this user can write, made so if it did not exist. A temporary
 * folder is shared: a folder someone else made, or one others can write to, could hand this
 * command compiled code of theirs, so it is not used.
 */
function safeFolder(dir: string): boolean {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = fs.lstatSync(dir);
    if (!stats.isDirectory()) return false;
    // Windows has no owner ids or group and world bits; its temporary folder is the user's own.
    if (process.getuid === undefined) return true;
    return stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function cacheKey(source: string): string {
  return createHash("sha256")
    .update(`${process.version}\0${process.arch}\0`)
    .update(source)
    .digest("hex")
    .slice(0, 32);
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Written whole or not at all: two doctors started at once never read half of the other's cache. */
function writeAtomically(file: string, data: Buffer): void {
  const partial = `${file}.${process.pid}`;
  try {
    fs.writeFileSync(partial, data, { mode: 0o600 });
    fs.renameSync(partial, file);
  } catch {
    fs.rmSync(partial, { force: true }); // a full disk or a folder gone: the next run compiles again
  }
}
