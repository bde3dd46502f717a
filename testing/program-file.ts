import { createRequire } from "node:module";
import * as path from "node:path";
import type { Program } from "./program-run";

/** jest's module object, when the kit was loaded by jest (jest gives every module its own `jest`). */
declare const jest: { isolateModules(fn: () => void): void } | undefined;

/**
 * A program given as its file (`index.ts` of a Pulumi project), for `runProgram`: each run loads
 * it anew, since a Pulumi program declares its resources when its module is loaded, and returns
 * its exports as the stack's outputs. Under jest the file is loaded by jest (with the project's
 * transform, e.g. ts-jest) in a module registry of its own; elsewhere by Node, with TypeScript
 * compiled as Pulumi's Node.js language host does it (the project's `ts-node` or the one
 * `@pulumi/pulumi` ships, with the project's `typescript` and `tsconfig.json`).
 */
export function programFile(file: string): Program<string> {
  const resolved = path.resolve(file);
  return () => {
    let exports: Record<string, unknown> = {};
    if (typeof jest !== "undefined") {
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading the program is the point
        exports = require(resolved) as Record<string, unknown>;
      });
      return exports;
    }
    if (/\.[mc]?tsx?$/.test(resolved)) registerTypeScript(path.dirname(resolved));
    forgetProjectModules(path.dirname(resolved));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading the program is the point
    return require(resolved) as Record<string, unknown>;
  };
}

/** Registers ts-node once, as `@pulumi/pulumi/cmd/run` does for a TypeScript program. */
function registerTypeScript(project: string): void {
  const holder = globalThis as unknown as Record<string, boolean | undefined>;
  if (holder.__pulumiEmailDeliveryTsRegistered_v1 || require.extensions[".ts"]) return;
  const load = createRequire(`${project}/`);
  const tsutils = load("@pulumi/pulumi/tsutils") as {
    typeScriptRequireStrings(): { tsnodeRequire: string; typescriptRequire: string };
    loadTypeScriptCompilerOptions(file: string): Record<string, unknown>;
  };
  const { tsnodeRequire, typescriptRequire } = tsutils.typeScriptRequireStrings();
  const tsconfig = path.join(project, "tsconfig.json");
  (load(tsnodeRequire) as { register(options: Record<string, unknown>): void }).register({
    compiler: typescriptRequire,
    project: tsconfig,
    compilerOptions: {
      target: "ES2020",
      module: "nodenext",
      moduleResolution: "nodenext",
      ...tsutils.loadTypeScriptCompilerOptions(tsconfig),
    },
  });
  holder.__pulumiEmailDeliveryTsRegistered_v1 = true;
}

/** Drops the project's own modules (not its node_modules) from Node's cache, so the program runs again. */
function forgetProjectModules(project: string): void {
  for (const file of Object.keys(require.cache)) {
    if (file.startsWith(`${project}${path.sep}`) && !file.includes(`${path.sep}node_modules${path.sep}`)) {
      delete require.cache[file];
    }
  }
}
