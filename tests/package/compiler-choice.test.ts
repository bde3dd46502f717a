import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../packaging/clean-clone";
import { run } from "../../packaging/commands";

/**
 * `packaging/tsc.js`, which picks the compiler for the build and the type-check: TypeScript 7's
 * native binary where it is installed, TypeScript 6 (with a warning) where it is not, so that a
 * user's git install still builds on a platform or mirror without 7's binary.
 */
describe("the compiler packaging/tsc.js runs", () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), "compiler-choice-"));
    await fs.mkdir(path.join(root, "packaging"));
    await fs.copyFile(path.join(REPO_ROOT, "packaging", "tsc.js"), path.join(root, "packaging", "tsc.js"));
    await fs.mkdir(path.join(root, "node_modules"));
    // TypeScript 6 as installed; TypeScript 7's launcher package without the per-platform binary
    // package its optional dependencies name, as npm leaves it where none fits.
    await fs.symlink(
      path.dirname(require.resolve("typescript/package.json")),
      path.join(root, "node_modules", "typescript"),
    );
    await fs.mkdir(path.join(root, "node_modules", "typescript-7"));
    await fs.copyFile(
      require.resolve("typescript-7/package.json"),
      path.join(root, "node_modules", "typescript-7", "package.json"),
    );
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it("is TypeScript 7 here, where its native binary is installed", async () => {
    const chosen = await run(
      process.execPath,
      [
        "-e",
        `console.log(require(${JSON.stringify(path.join(REPO_ROOT, "packaging", "tsc.js"))}).TSC_VERSION)`,
      ],
      { cwd: REPO_ROOT },
    );
    expect(chosen.trim()).toMatch(/^typescript@7\./);
  });

  it("falls back to TypeScript 6 with a warning where 7's native binary is missing, and compiles", async () => {
    const version6 = JSON.parse(
      await fs.readFile(require.resolve("typescript/package.json"), "utf8"),
    ).version;
    const chosen = await run(
      process.execPath,
      ["-e", `console.log(require("./packaging/tsc.js").TSC_VERSION)`],
      {
        cwd: root,
      },
    );
    expect(chosen.trim()).toBe(`typescript@${version6}`);

    await fs.writeFile(path.join(root, "a.ts"), "export const a: number = 1;\n");
    const { stdout, stderr } = await runWithStderr(["packaging/tsc.js", "--version"], root);
    expect(stdout.trim()).toBe(`Version ${version6}`);
    expect(stderr).toContain(
      `TypeScript 7's native compiler is not installed for ${process.platform}-${process.arch}`,
    );
    expect(stderr).toContain(`compiling with typescript@${version6} instead`);

    await run(process.execPath, ["packaging/tsc.js", "--outDir", "out", "a.ts"], { cwd: root });
    expect(await fs.readFile(path.join(root, "out", "a.js"), "utf8")).toContain("a = 1");
  });

  it("exits with the compiler's status: a type error fails", async () => {
    await fs.writeFile(path.join(root, "bad.ts"), "export const a: number = 'one';\n");
    await expect(
      run(process.execPath, ["packaging/tsc.js", "--noEmit", "bad.ts"], { cwd: root }),
    ).rejects.toThrow(/TS2322/);
  });
});

/** `node <args>` in `cwd`, with what it wrote to each stream. */
function runWithStderr(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd }, (error, stdout, stderr) =>
      error ? reject(error) : resolve({ stdout, stderr }),
    );
  });
}
