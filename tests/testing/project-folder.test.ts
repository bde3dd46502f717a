import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../../packaging/clean-clone";
import { run } from "../../packaging/commands";

/**
 * The provider host runs in the Pulumi project's folder, and the stored loader loads this package
 * from there. The kit ran the loaders in the test process's current folder instead, so a test run
 * from anywhere else (a monorepo's root with the project in `infra/`, `node --test infra/…`, the
 * demo's launcher run from another folder) failed every resource with "could not be loaded from
 * <that folder>", or ran another installed version than the program's. A `programFile` program's
 * project is its file's folder.
 */

const PROGRAM = path.join(__dirname, "programs", "function-program.js");

it("a programFile program runs its providers from its project's folder, whatever the current folder", async () => {
  const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), "kit-elsewhere-"));
  try {
    const script = `
      const kit = require("node:module").createRequire(${JSON.stringify(`${REPO_ROOT}/`)})("pulumi-email-delivery/testing");
      kit.runProgram(kit.programFile(${JSON.stringify(PROGRAM)}), { mode: "preview" }).then((run) =>
        process.stdout.write(JSON.stringify({
          routes: run.ofType("email-delivery:Route").map((r) => r.name),
          errors: run.errors.map((e) => e.message),
        })));`;
    const output = await run(process.execPath, ["-e", script], { cwd: elsewhere });
    expect(JSON.parse(output)).toEqual({ routes: ["support"], errors: [] });
  } finally {
    await fs.rm(elsewhere, { recursive: true, force: true });
  }
}, 60_000);
