import { promises as fs, readFileSync } from "node:fs";
import * as path from "node:path";
import { REPO_ROOT } from "./clean-clone";
import { npm } from "./commands";

/** The package's name on npm (package.json "name"). */
export const PACKAGE_NAME = "pulumi-email-delivery";

/** The ways users install the package; the README gives the commands for each. */
export type InstallWay = "tarball" | "path" | "git";

export interface PackageSource {
  /** A clean clone of the repository (`cleanClone`), for path and git installs; a path install needs its dev dependencies. */
  clone?: string;
  /** An `npm pack` tarball, for a tarball install (the file the registry would serve). */
  tarball?: string;
}

export interface UserProject {
  dir: string;
  way: InstallWay;
  /** What was handed to `npm install` for the package. */
  packageSpec: string;
}

/** Packages a user installs beside this one, in the versions this repository is developed and tested with. */
export const USER_PACKAGES = ["@pulumi/pulumi", "@pulumi/cloudflare", "typescript", "@types/node"] as const;

/** The test runner a user installs to test a program with the kit (docs/testing.md). */
export const TEST_PACKAGES = ["jest", "ts-jest", "@types/jest"] as const;

/**
 * `name@version` for each of `packages` (default USER_PACKAGES), as installed in this checkout
 * (so installs hit npm's cache).
 */
export function testedVersions(packages: readonly string[] = USER_PACKAGES): string[] {
  return packages.map((name) => {
    const manifest = path.join(REPO_ROOT, "node_modules", name, "package.json");
    return `${name}@${(JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version}`;
  });
}

/**
 * A new project at `dir` with the package installed `way`, as the README says, beside its own
 * `@pulumi/pulumi`, `@pulumi/cloudflare`, `typescript` and `@types/node`, in one install:
 * - path: `npm install /path/to/clone` (a symlink; the clone needs its dependencies, `npm ci`);
 * - tarball: the tarball copied into the project's `vendor/` and recorded in package.json and
 *   package-lock.json, then installed with `npm ci`, as a CI runner installs a repository that
 *   commits all three (the registry would serve the same file);
 * - git: `npm install git+file://…`, which clones it and builds it with `prepare`.
 */
export async function createUserProject(
  dir: string,
  way: InstallWay,
  source: PackageSource,
): Promise<UserProject> {
  await fs.mkdir(dir, { recursive: true });
  const manifest = { name: "email-delivery-user-project", version: "1.0.0", private: true };
  await fs.writeFile(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const clone = () => {
    if (!source.clone) throw new Error(`a ${way} install needs source.clone`);
    return source.clone;
  };
  let packageSpec: string;
  switch (way) {
    case "path":
      packageSpec = clone();
      break;
    case "tarball": {
      if (!source.tarball) throw new Error("a tarball install needs source.tarball");
      const vendored = path.join("vendor", path.basename(source.tarball));
      await fs.mkdir(path.join(dir, "vendor"), { recursive: true });
      await fs.copyFile(source.tarball, path.join(dir, vendored));
      packageSpec = `./${vendored}`;
      await npm(["install", "--package-lock-only", packageSpec, ...testedVersions()], { cwd: dir });
      await npm(["ci"], { cwd: dir });
      return { dir, way, packageSpec };
    }
    case "git":
      packageSpec = `git+file://${clone()}`;
      break;
  }
  await npm(["install", packageSpec, ...testedVersions()], { cwd: dir });
  return { dir, way, packageSpec };
}

/**
 * Packs `packageDir` as `npm pack` (and `npm publish`) does, running `prepare` (which builds it)
 * unless `build` is false (tests pack the build jest's setup made rather than rebuild it under
 * other tests' feet): the tarball and the files it holds.
 */
export async function packTarball(
  packageDir: string,
  destination: string,
  options: { build?: boolean } = {},
): Promise<{ file: string; files: string[] }> {
  await fs.mkdir(destination, { recursive: true });
  const scripts = options.build === false ? ["--ignore-scripts"] : [];
  const output = await npm(["pack", "--json", "--pack-destination", destination, ...scripts], {
    cwd: packageDir,
  });
  // `prepare` may print before the JSON (npm sends script output to stdout).
  const [packed] = JSON.parse(output.slice(output.indexOf("[\n"))) as {
    filename: string;
    files: { path: string }[];
  }[];
  return {
    file: path.join(destination, packed.filename),
    files: packed.files.map((file) => file.path).sort(),
  };
}
