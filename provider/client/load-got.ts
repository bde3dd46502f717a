import { createRequire } from "node:module";
import type { Got } from "got";

/**
 * got, loaded when a client is first built rather than when the package is imported. got is an
 * ES module: Node 20.19+ `require()`s it, but a test runner's own module system may not (jest
 * before Node 24.9 throws "Must use import to load ES Module"). There it is loaded by Node's own
 * `require`, outside the runner's registry, so `getDomain` in a program under test works with a
 * plain jest config (no transform of got and its dependencies).
 */
export function loadGot(): Got {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose (above)
    return (require("got") as { default: Got }).default;
  } catch (error) {
    if (!isEsmRefusal(error)) throw error;
    return (createRequire(__filename)("got") as { default: Got }).default;
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
