import { execFile } from "node:child_process";
import { REPO_ROOT } from "../../packaging/clean-clone";

/**
 * jest.config.js transpiles with swc, and with ts-jest (saying why) where swc's native binary
 * does not load: a contributor on such a machine still runs the suite, slower.
 */
function configuredTransform(preload: string): Promise<{ transformers: string[]; stderr: string }> {
  const script = `${preload}
    const { transform } = require("./jest.config.js");
    process.stdout.write(JSON.stringify(Object.values(transform).map(([name]) => name)));`;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ["-e", script], { cwd: REPO_ROOT }, (error, stdout, stderr) =>
      error ? reject(error) : resolve({ transformers: JSON.parse(stdout) as string[], stderr }),
    ),
  );
}

it("transpiles with swc where its compiler loads", async () => {
  expect(await configuredTransform("")).toEqual({ transformers: ["@swc/jest", "@swc/jest"], stderr: "" });
});

it("falls back to ts-jest, saying why, where swc's native binary is missing", async () => {
  // What @swc/core throws where npm installed no binary package for the platform.
  const missingBinary = `
    const Module = require("node:module");
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request === "@swc/core") {
        throw Object.assign(new Error("Cannot find module '@swc/core-linux-x64-gnu'\\nRequire stack: …"), {
          code: "MODULE_NOT_FOUND",
        });
      }
      return resolve.call(this, request, ...rest);
    };`;
  const { transformers, stderr } = await configuredTransform(missingBinary);
  expect(transformers).toEqual(["ts-jest"]);
  expect(stderr).toContain(
    "swc's compiler does not load here (Cannot find module '@swc/core-linux-x64-gnu'): jest transpiles with ts-jest, slower",
  );
});
