import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../packaging/clean-clone";
import { run } from "../../packaging/commands";

/**
 * `packaging/tsc.js`, which picks the compiler for the build and the type-check: TypeScript 7's
 * native binary where it runs, TypeScript 6 (with a warning) where it does not, so that a user's
 * git install still builds on a platform, mirror or noexec cache where 7's binary cannot run.
 */
describe("the compiler packaging/tsc.js runs", () => {
  const platformPackage = `@typescript/typescript-${process.platform}-${process.arch}`;
  const typescript7 = path.dirname(require.resolve("typescript-7/package.json"));
  let root: string;
  let version6: string;
  beforeAll(async () => {
    version6 = JSON.parse(await fs.readFile(require.resolve("typescript/package.json"), "utf8")).version;
  });
  beforeEach(async () => {
    // A project with TypeScript 6 installed and TypeScript 7's launcher package (a copy, so that it
    // looks for its binary package here), as npm leaves them where 7 has no build: no binary package.
    root = await fs.mkdtemp(path.join(os.tmpdir(), "compiler-choice-"));
    await fs.mkdir(path.join(root, "packaging"));
    await fs.copyFile(path.join(REPO_ROOT, "packaging", "tsc.js"), path.join(root, "packaging", "tsc.js"));
    await fs.mkdir(path.join(root, "node_modules"));
    await fs.symlink(
      path.dirname(require.resolve("typescript/package.json")),
      path.join(root, "node_modules", "typescript"),
    );
    await fs.cp(typescript7, path.join(root, "node_modules", "typescript-7"), { recursive: true });
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  /** What `packaging/tsc.js` in `cwd` chooses, and what loading it wrote on stderr. */
  async function choice(cwd: string) {
    const { stdout, stderr } = await node(
      ["-e", `console.log(JSON.stringify(require("./packaging/tsc.js").compiler()))`],
      cwd,
    );
    return { ...(JSON.parse(stdout) as { version: string; fallbackReason?: string }), stderr };
  }

  it("is TypeScript 7 in this repository where npm installed its binary for this platform (else 6, saying why)", async () => {
    const chosen = await choice(REPO_ROOT);
    expect(chosen.stderr).toBe("");
    const binaryInstalled = await fs.access(path.join(REPO_ROOT, "node_modules", platformPackage)).then(
      () => true,
      () => false, // a platform 7 has no build for, or `npm ci --omit=optional`: the cases below
    );
    if (binaryInstalled) {
      expect(chosen.version).toMatch(/^typescript@7\./);
      expect(chosen.fallbackReason).toBeUndefined();
    } else {
      expect(chosen.version).toBe(`typescript@${version6}`);
      expect(chosen.fallbackReason).toContain(platformPackage);
    }
  });

  it.each([
    ["its binary package is missing", async () => undefined, `Unable to resolve ${platformPackage}`],
    [
      "its binary cannot be run (a cache folder mounted noexec)",
      async () => {
        const binary = path.join(root, "node_modules", platformPackage);
        await fs.mkdir(path.join(binary, "lib"), { recursive: true });
        await fs.copyFile(
          require.resolve(`${platformPackage}/package.json`, { paths: [typescript7] }),
          path.join(binary, "package.json"),
        );
        await fs.writeFile(path.join(binary, "lib", "tsc"), "", { mode: 0o644 }); // not executable
      },
      "EACCES",
    ],
    [
      "typescript-7 is not installed (node_modules from before it was added)",
      () => fs.rm(path.join(root, "node_modules", "typescript-7"), { recursive: true }),
      "Cannot find module 'typescript-7/package.json'",
    ],
  ])("falls back to TypeScript 6 where %s, and says why when it runs", async (_case, arrange, why) => {
    await arrange();
    const chosen = await choice(root);
    expect(chosen.version).toBe(`typescript@${version6}`);
    expect(chosen.fallbackReason).toContain(why);
    expect(chosen.stderr).toBe(""); // choosing alone says nothing: a build that is up to date stays quiet

    const { stdout, stderr } = await node(["packaging/tsc.js", "--version"], root);
    expect(stdout.trim()).toBe(`Version ${version6}`);
    expect(stderr).toContain(
      `TypeScript 7's native compiler does not run on ${process.platform}-${process.arch}`,
    );
    expect(stderr).toContain(why);
    expect(stderr).toContain(`compiling with typescript@${version6} instead`);
  });

  it("compiles with the fallback, and exits with its status: a type error fails, with tsc's diagnostics", async () => {
    // `--lib es5`: the smallest library, so each TypeScript 6 run takes 0.3 s of CPU, not 2.
    await fs.writeFile(path.join(root, "a.ts"), "export const a: number = 1;\n");
    await run(process.execPath, ["packaging/tsc.js", "--lib", "es5", "--outDir", "out", "a.ts"], {
      cwd: root,
    });
    expect(await fs.readFile(path.join(root, "out", "a.js"), "utf8")).toContain("a = 1");

    await fs.writeFile(path.join(root, "bad.ts"), "export const a: number = 'one';\n");
    await expect(
      run(process.execPath, ["packaging/tsc.js", "--lib", "es5", "--noEmit", "bad.ts"], { cwd: root }),
    ).rejects.toThrow(/TS2322/);
  });
});

/** `node <args>` in `cwd`, with what it wrote to each stream. */
function node(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd }, (error, stdout, stderr) =>
      error ? reject(error) : resolve({ stdout, stderr }),
    );
  });
}
