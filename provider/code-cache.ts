import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { createRequire, wrap } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import * as vm from "node:vm";

/**
 * How a bundle's code was compiled: from the cache of an earlier run (`used`), from source with a
 * cache written for the next run (`written`), or from source with no cache to read or write (`off`:
 * no safe folder for it).
 */
export type CodeCacheUse = "used" | "written" | "off";

/** Where the cache is kept, and when it is written. */
export interface CodeCacheOptions {
  /** @default a folder of this user's own under the system's temporary folder; undefined: none */
  cacheDir?: string | undefined;
  /**
   * Write the cache as soon as the file has run too, not only when the process exits: the engine
   * may end a provider process without an exit Node sees.
   * @default false
   */
  writeAfterLoad?: boolean;
}

/**
 * Runs `file`, a CommonJS bundle (the doctor's command, the providers), with V8's compiled code of
 * an earlier process where there is one, and answers its exports. Compiling is most of what is
 * left of a start-up once the modules are one file; Node 22.1+ has such a cache of its own
 * (`module.enableCompileCache()`), Node 20 none. The cache is V8's own data, which V8 checks
 * against the source and its own version and flags and rejects when they differ; it is kept under
 * a name made of the source's hash and Node's version, so another build or Node never meets it.
 * V8 does not check the data itself, and a damaged cache it accepts stops the process: the file
 * holds a hash of the data, and data that does not match it is never given to V8. The cache is
 * written when the process exits, so it holds the functions the run compiled, not only the
 * file's top level.
 */
export function runWithCodeCache(
  file: string,
  { cacheDir = userCacheDir(), writeAfterLoad = false }: CodeCacheOptions = {},
): { use: CodeCacheUse; exports: unknown } {
  const source = fs.readFileSync(file, "utf8");
  const folder = cacheDir !== undefined && safeFolder(cacheDir) ? cacheDir : undefined;
  const cacheFile = folder && path.join(folder, `${path.basename(file, ".js")}-${cacheKey(source)}.v8`);
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  const script = new vm.Script(wrap(source), { filename: file, cachedData });
  const use: CodeCacheUse = !cacheFile
    ? "off"
    : cachedData && !script.cachedDataRejected
      ? "used"
      : "written";
  if (use === "written") process.once("exit", () => writeCache(cacheFile!, script.createCachedData()));
  const module = { exports: {}, id: file, filename: file, loaded: false, children: [], paths: [] };
  const compiled = script.runInThisContext() as (...args: unknown[]) => void;
  compiled.call(module.exports, module.exports, createRequire(file), module, file, path.dirname(file));
  if (use === "written" && writeAfterLoad) writeCache(cacheFile!, script.createCachedData());
  return { use, exports: module.exports };
}

/** A folder of this user's own under the system's temporary folder, as Node's cache is. */
export function userCacheDir(): string {
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

/** The length of the hash before the data: SHA-256. */
const DIGEST_BYTES = 32;

function digest(data: Uint8Array): Buffer {
  return createHash("sha256").update(data).digest();
}

/** The cached data, if the file holds it whole: its hash, then the data the hash is of. */
function readCache(file: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const data = bytes.subarray(DIGEST_BYTES);
  return bytes.length > DIGEST_BYTES && digest(data).equals(bytes.subarray(0, DIGEST_BYTES))
    ? data
    : undefined;
}

/**
 * Writes the cache whole or not at all: under a name no other process uses (two containers sharing
 * a folder may share a pid), flushed to disk, then renamed over the old. Caches of other builds of
 * the same file written over a month ago go: each build or Node version makes its own.
 */
function writeCache(file: string, data: Buffer): void {
  const partial = `${file}.${randomBytes(8).toString("hex")}`;
  try {
    const fd = fs.openSync(partial, "wx", 0o600);
    try {
      fs.writeSync(fd, digest(data));
      fs.writeSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(partial, file);
  } catch {
    fs.rmSync(partial, { force: true }); // a full disk or a folder gone: the next run compiles again
    return;
  }
  pruneOldCaches(file);
}

const MONTH_MS = 30 * 24 * 3600 * 1000;

function pruneOldCaches(file: string): void {
  const folder = path.dirname(file);
  const prefix = path.basename(file).replace(/-[0-9a-f]{32}\.v8$/, "-");
  try {
    for (const name of fs.readdirSync(folder)) {
      const other = path.join(folder, name);
      if (other === file || !name.startsWith(prefix) || !/-[0-9a-f]{32}\.v8$/.test(name)) continue;
      if (Date.now() - fs.statSync(other).mtimeMs > MONTH_MS) fs.rmSync(other, { force: true });
    }
  } catch {
    // another process pruned it first
  }
}
