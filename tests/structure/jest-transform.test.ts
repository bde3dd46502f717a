import { execFile } from "node:child_process";
import * as path from "node:path";
import * as ts from "typescript";
import { REPO_ROOT } from "../../packaging/clean-clone";

/**
 * jest.config.js transpiles with swc, and with ts-jest (saying why) where swc's native binary
 * does not load: a contributor on such a machine still runs the suite, slower.
 */
function configuredTransform(
  preload: string,
): Promise<{ swcLoads: boolean; transformers: string[]; stderr: string }> {
  const script = `${preload}
    let swcLoads = true;
    try { require("@swc/core"); } catch { swcLoads = false; }
    const { transform } = require("./jest.config.js");
    const transformers = Object.values(transform).map(([name]) => name);
    process.stdout.write(JSON.stringify({ swcLoads, transformers }));`;
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ["-e", script], { cwd: REPO_ROOT }, (error, stdout, stderr) =>
      error
        ? reject(error)
        : resolve({ ...(JSON.parse(stdout) as { swcLoads: boolean; transformers: string[] }), stderr }),
    ),
  );
}

it("transpiles with swc where its compiler loads (else with ts-jest, the case below)", async () => {
  const { swcLoads, transformers, stderr } = await configuredTransform("");
  if (swcLoads)
    expect({ transformers, stderr }).toEqual({ transformers: ["@swc/jest", "@swc/jest"], stderr: "" });
  else
    expect({ transformers, stderr }).toEqual({
      transformers: ["ts-jest"],
      stderr: expect.stringContaining("ts-jest"),
    });
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
  const { swcLoads, transformers, stderr } = await configuredTransform(missingBinary);
  expect(swcLoads).toBe(false);
  expect(transformers).toEqual(["ts-jest"]);
  expect(stderr).toContain(
    "swc's compiler does not load here (Cannot find module '@swc/core-linux-x64-gnu'): jest transpiles with ts-jest, slower",
  );
});

it("type-checks every file as one the transform compiles alone (isolatedModules)", () => {
  // swc and ts-jest transpile file by file: a type re-exported as a value would reach jest as an
  // export of `undefined`. With isolatedModules, `npm run typecheck` refuses it instead.
  const { config } = ts.readConfigFile(path.join(REPO_ROOT, "tsconfig.json"), ts.sys.readFile);
  expect(config.compilerOptions).toMatchObject({ isolatedModules: true });
});
