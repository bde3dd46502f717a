import { promises as fs } from "node:fs";
import * as path from "node:path";
import { run } from "./commands";

/** This repository's root. */
export const REPO_ROOT = path.resolve(__dirname, "..");

/**
 * A clean clone of this checkout's working tree, as CI checks it out: the files git tracks and the
 * new ones it does not ignore (so uncommitted work is included), committed into a fresh repository
 * at `dest`. No `dist/`, no `node_modules/`: what `npm pack` or a git install sees.
 */
export async function cleanClone(dest: string): Promise<string> {
  const listed = await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO_ROOT,
  });
  await fs.mkdir(dest, { recursive: true });
  for (const file of new Set(listed.split("\0").filter(Boolean))) {
    const from = path.join(REPO_ROOT, file);
    const stat = await fs.lstat(from).catch(() => undefined);
    if (!stat) continue; // deleted in the working tree
    await fs.mkdir(path.dirname(path.join(dest, file)), { recursive: true });
    await fs.cp(from, path.join(dest, file), { verbatimSymlinks: true });
  }
  const git = (...args: string[]) =>
    run("git", ["-c", "user.name=clean clone", "-c", "user.email=clean-clone@localhost", ...args], {
      cwd: dest,
    });
  await git("init", "--quiet", "--initial-branch=main");
  await git("add", "--all");
  await git("commit", "--quiet", "--no-verify", "--message", "The working tree of pulumi-email-delivery");
  return dest;
}

/**
 * Gives a clone the development dependencies `npm ci` would install there, by linking this
 * checkout's `node_modules` (same lockfile, so the same tree), after the commit: the link is not
 * part of what git installs see.
 */
export async function linkDevDependencies(clone: string): Promise<void> {
  await fs.symlink(path.join(REPO_ROOT, "node_modules"), path.join(clone, "node_modules"), "dir");
}

/**
 * Gives a clone this checkout's build (`dist/` with its stamp), as `npm ci` in the clone would
 * have made it: its `prepare` then finds the build current instead of compiling the same sources
 * again. Only for a clone of the sources `dist/` was built from (jest's setup builds them first);
 * otherwise the stamp differs and `prepare` builds.
 */
export async function copyBuild(clone: string): Promise<void> {
  await fs.cp(path.join(REPO_ROOT, "dist"), path.join(clone, "dist"), { recursive: true });
}
