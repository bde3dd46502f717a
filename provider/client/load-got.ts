import Module from "node:module";
import * as path from "node:path";
import type { Got } from "got";

/**
 * got, loaded when a client is first built rather than when the package is imported. got is an
 * ES module: Node 20.19+ `require()`s it, but a test runner's own module system may not (jest
 * before Node 24.9 throws "Must use import to load ES Module"). There it is loaded by Node's own
 * loader, outside the runner's registry, so `getDomain` in a program under test works with a
 * plain jest config (no transform of got and its dependencies).
 */
export function loadGot(): Got {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose (above)
    return (require("got") as { default: Got }).default;
  } catch (error) {
    if (!isEsmRefusal(error)) throw error;
    return (nodeRequire(__filename)("got") as { default: Got }).default;
  }
}

/** The error a module system that cannot load ES modules throws for one. */
function isEsmRefusal(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === "ERR_REQUIRE_ESM" ||
    (typeof message === "string" && message.includes("Must use import to load ES Module"))
  );
}

/**
 * Node's own `require` from `file`. Not `createRequire`: jest replaces it with its registry's; a
 * module object of Node's own class requires through Node's loader.
 */
function nodeRequire(file: string): (id: string) => unknown {
  const NodeModule = Module as unknown as {
    new (id: string): { filename: string; paths: string[]; require(id: string): unknown };
    _nodeModulePaths(dir: string): string[];
  };
  const loader = new NodeModule(file);
  loader.filename = file;
  loader.paths = NodeModule._nodeModulePaths(path.dirname(file));
  return (id) => loader.require(id);
}
