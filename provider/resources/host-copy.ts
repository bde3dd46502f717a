import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { PACKAGE_NAME } from "../dynamic/loader";

/** One installed copy of this package: its folder and version. */
export interface PackageCopy {
  root: string;
  version: string;
}

/**
 * What is wrong when Pulumi's provider host, started in `projectDir`, would not run the resources
 * with the copy of this package that registers them: none is installed there (the package came in
 * only as another package's dependency), or another version is. Undefined when all is well
 * (another copy of the same version is fine).
 */
export function hostCopyProblem(
  registering: PackageCopy,
  inProject: PackageCopy | undefined,
  projectDir: string,
): string | undefined {
  if (!inProject) {
    return (
      `${PACKAGE_NAME} ${registering.version} (loaded from ${registering.root}) is not installed in the Pulumi ` +
      `project: the provider host runs in ${projectDir} and loads the package from there by name to run this ` +
      `stack's resources, so they will fail. Add it to the project's own dependencies ` +
      `(npm install ${PACKAGE_NAME}@${registering.version}), not only to a package that depends on it.`
    );
  }
  if (inProject.version === registering.version) return undefined;
  return (
    `This program registers its email-delivery resources with ${PACKAGE_NAME} ${registering.version} ` +
    `(from ${registering.root}), but the provider host will run them with ${inProject.version}, the version ` +
    `installed in the Pulumi project (${inProject.root}). Make the project depend on the version the program uses.`
  );
}

/** The copy of this package this code belongs to: the nearest package.json of that name above it. */
function registeringCopy(): PackageCopy | undefined {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const copy = copyAt(dir);
    if (copy) return copy;
  }
  return undefined;
}

/** The copy a provider host started in `projectDir` would load (as the stored loader resolves it). */
function copyInProject(projectDir: string): PackageCopy | undefined {
  try {
    const manifest = createRequire(path.join(projectDir, "/")).resolve(`${PACKAGE_NAME}/package.json`);
    return copyAt(path.dirname(manifest));
  } catch {
    return undefined;
  }
}

function copyAt(dir: string): PackageCopy | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
      name?: string;
      version?: string;
    };
    if (manifest.name !== PACKAGE_NAME) return undefined;
    return { root: realpathSync(dir), version: String(manifest.version) };
  } catch {
    return undefined;
  }
}

let checked = false;

/**
 * Warns (once per program run) when the provider host would not load this copy of the package:
 * the program runs in the folder the engine also starts the host in. A warning, not an error:
 * unit tests under `setMocks` may run from another folder, where no host ever starts.
 */
export function warnIfHostLoadsAnotherCopy(): void {
  if (checked) return;
  checked = true;
  const registering = registeringCopy();
  if (!registering) return;
  const projectDir = process.cwd();
  const problem = hostCopyProblem(registering, copyInProject(projectDir), projectDir);
  if (problem) void pulumi.log.warn(problem);
}
