import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../packaging/clean-clone";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildIsCurrent, sourceHash, writeStamp } = require("../../packaging/build.js") as {
  buildIsCurrent(root?: string): boolean;
  sourceHash(root?: string, compiler?: string): string;
  writeStamp(hash: string, root?: string): void;
};

/** The build's stamp, which lets jest's setup skip a build made from the same sources. */
describe("the build stamp", () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), "build-stamp-"));
    for (const file of ["package.json", "tsconfig.json", "tsconfig.build.json"]) {
      await fs.copyFile(path.join(REPO_ROOT, file), path.join(root, file));
    }
    await fs.mkdir(path.join(root, "provider", "client"), { recursive: true });
    await fs.writeFile(path.join(root, "provider", "index.ts"), "export * from './client';\n");
    await fs.writeFile(path.join(root, "provider", "client", "index.ts"), "export const a = 1;\n");
    await fs.mkdir(path.join(root, "dist"));
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it("matches the sources it was written for, and nothing else", async () => {
    expect(buildIsCurrent(root)).toBe(false); // no stamp: never built
    writeStamp(sourceHash(root), root);
    expect(buildIsCurrent(root)).toBe(true);
    await fs.utimes(path.join(root, "provider", "index.ts"), new Date(), new Date()); // touched only
    expect(buildIsCurrent(root)).toBe(true);

    await fs.appendFile(path.join(root, "provider", "client", "index.ts"), "export const b = 2;\n");
    expect(buildIsCurrent(root)).toBe(false);
  });

  it.each([
    ["a new source file", (root: string) => fs.writeFile(path.join(root, "provider", "new.ts"), "")],
    ["a deleted one", (root: string) => fs.rm(path.join(root, "provider", "client", "index.ts"))],
    [
      "a renamed one",
      (root: string) =>
        fs.rename(path.join(root, "provider", "index.ts"), path.join(root, "provider", "main.ts")),
    ],
    [
      "another lock file (the doctor's bundle holds the locked got and zod)",
      (root: string) => fs.writeFile(path.join(root, "package-lock.json"), "{}\n"),
    ],
    [
      "another compiler setting",
      (root: string) => fs.appendFile(path.join(root, "tsconfig.build.json"), "\n"),
    ],
  ])("is stale after %s", async (_change, change) => {
    writeStamp(sourceHash(root), root);
    await change(root);
    expect(buildIsCurrent(root)).toBe(false);
  });

  it("is stale after a build by another compiler (TypeScript 6 builds where 7's native binary is missing)", () => {
    writeStamp(sourceHash(root, "typescript@0.0.0"), root); // not the one building here
    expect(buildIsCurrent(root)).toBe(false);
    writeStamp(sourceHash(root), root);
    expect(buildIsCurrent(root)).toBe(true);
  });

  it("is not packed: package.json ships folders of dist/, never dist/ itself", async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      files: string[];
    };
    const shipped = manifest.files.filter((file) => file.startsWith("dist"));
    expect(shipped.length).toBeGreaterThan(0);
    for (const folder of shipped) expect(folder).toMatch(/^dist\/[a-z-]+$/);
  });
});
