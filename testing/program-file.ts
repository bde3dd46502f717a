import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { processState } from "../provider/process-state";
import type { Program } from "./run-types";
import { projectTypeScriptUtils } from "./pulumi-internals";

/** jest's module object, when the kit was loaded by jest (jest gives every module its own `jest`). */
declare const jest: { isolateModules(fn: () => void): void } | undefined;

/** Loads of ES-module programs in this process: each gets a URL of its own, whatever programFile made it. */
let loads = 0;

/**
 * A program given as its file (`index.ts` of a Pulumi project), for `runProgram`: each run loads
 * it anew, since a Pulumi program declares its resources when its module is loaded, and returns
 * its exports as the stack's outputs. Under jest the file is loaded by jest (with the project's
 * transform, e.g. ts-jest) in a module registry of its own; elsewhere by Node, with TypeScript
 * compiled as Pulumi's Node.js language host does it (the project's `ts-node` or the one
 * `@pulumi/pulumi` ships, with the project's `typescript` and `tsconfig.json`), and an ES module
 * (`.mjs`, or `.js` in a `"type": "module"` package) imported, as that host imports it, under a
 * URL of its own per run (the modules it imports load once). As there, a module that exports a
 * function (an ES module's default export) is called, and what it returns is the outputs.
 */
export function programFile(file: string): Program<string> {
  const resolved = path.resolve(file);
  const program = async () => {
    loads += 1;
    if (typeof jest !== "undefined") {
      let exports: unknown = {};
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading the program is the point
        exports = require(resolved);
      });
      return outputsOf(exports);
    }
    if (isEsModule(resolved)) {
      const namespace = (await import(`${pathToFileURL(resolved).href}?run=${loads}`)) as Record<
        string,
        unknown
      >;
      if (Object.getOwnPropertyDescriptor(namespace, "default") === undefined) return outputsOf(namespace);
      if (Object.keys(namespace).length !== 1)
        throw new Error(`${file}: expected either a default export or named exports, not both (as Pulumi)`);
      return outputsOf(namespace.default);
    }
    if (/\.[mc]?tsx?$/.test(resolved)) registerTypeScript(path.dirname(resolved));
    forgetProjectModules(path.dirname(resolved));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loading the program is the point
    return outputsOf(require(resolved));
  };
  return Object.assign(program, { projectDir: path.dirname(resolved) });
}

/** The stack's outputs from what a program's module exports, as Pulumi's language host reads them. */
async function outputsOf(exported: unknown): Promise<Record<string, unknown>> {
  const result: unknown = typeof exported === "function" ? await (exported as () => unknown)() : exported;
  return (result ?? {}) as Record<string, unknown>;
}

/** Whether Node loads `file` as an ES module: `.mjs`, or `.js` whose package says `"type": "module"`. */
function isEsModule(file: string): boolean {
  if (file.endsWith(".mjs")) return true;
  if (!file.endsWith(".js")) return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        return (JSON.parse(readFileSync(manifest, "utf8")) as { type?: unknown }).type === "module";
      } catch {
        return false;
      }
    }
    if (path.dirname(dir) === dir) return false;
  }
}

/** Registers ts-node once, as `@pulumi/pulumi/cmd/run` does for a TypeScript program. */
function registerTypeScript(project: string): void {
  const state = processState();
  if (state.typeScriptRegistered || require.extensions[".ts"]) return;
  const load = createRequire(`${project}/`);
  const tsutils = projectTypeScriptUtils(project);
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
  state.typeScriptRegistered = true;
}

/** Drops the project's own modules (not its node_modules) from Node's cache, so the program runs again. */
function forgetProjectModules(project: string): void {
  for (const file of Object.keys(require.cache)) {
    if (file.startsWith(`${project}${path.sep}`) && !file.includes(`${path.sep}node_modules${path.sep}`)) {
      delete require.cache[file];
    }
  }
}
