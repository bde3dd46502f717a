import * as path from "node:path";
import { REPO_ROOT } from "../../packaging/clean-clone";
import { run } from "../../packaging/commands";
import { programFile, runProgram } from "../../testing";

/**
 * `programFile` loads a program file as Pulumi's Node.js language host does, anew for every run:
 * - a module that exports a function (Pulumi's form of an async CommonJS program, and an ES
 *   module's default export): Pulumi calls it and its result is the stack's outputs. The kit took
 *   the function itself for the outputs: nothing was registered, and the run had no error.
 * - an ES module (`.mjs`, or `.js` under `"type": "module"`) under Node's test runner: Node
 *   (20.19+, which `require`s ES modules) loads it once per process, so the second run registered
 *   nothing, again without an error.
 */

const PROGRAMS = path.join(__dirname, "programs");
const ROUTE = "email-delivery:Route";

describe("programFile", () => {
  it("under jest: a module exporting a function is called, each run, and its result is the outputs", async () => {
    const program = programFile(path.join(PROGRAMS, "function-program.js"));
    for (let i = 0; i < 2; i++) {
      const outcome = await runProgram(program, { mode: "preview" });
      expect(outcome.errors).toEqual([]);
      expect(outcome.ofType(ROUTE).map((r) => r.name)).toEqual(["support"]);
      expect(outcome.outputs).toEqual({ address: "support" });
    }
  });

  it("under Node (the built kit): an ES module, a default-exported function and a CommonJS function, each run four times", async () => {
    const script = `
      const { programFile, runProgram } = require("pulumi-email-delivery/testing");
      (async () => {
        const runs = [];
        for (const file of JSON.parse(process.argv[1])) {
          const program = programFile(file);
          // The same program twice, then a programFile of its own per run (as docs/testing.md's tests do).
          for (let i = 0; i < 4; i++) {
            const run = await runProgram(i < 2 ? program : programFile(file), { mode: "preview" });
            runs.push({
              program: require("node:path").basename(file),
              routes: run.ofType(${JSON.stringify(ROUTE)}).map((r) => r.name),
              outputs: run.outputs,
              errors: run.errors.map((e) => e.message),
            });
          }
        }
        process.stdout.write(JSON.stringify(runs));
      })();`;
    const files = ["esm-program.mjs", "esm-default-program.mjs", "function-program.js"];
    const output = await run(
      process.execPath,
      ["-e", script, JSON.stringify(files.map((file) => path.join(PROGRAMS, file)))],
      { cwd: REPO_ROOT },
    );
    const expected = files.flatMap((program) =>
      [1, 2, 3, 4].map(() => ({ program, routes: ["support"], outputs: { address: "support" }, errors: [] })),
    );
    expect(JSON.parse(output)).toEqual(expected);
  }, 60_000);
});
