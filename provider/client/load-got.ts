import type { Got } from "got";

/**
 * got, loaded when a client is first built rather than when the package is imported. got is an
 * ES module: Node 20.19+ `require()`s it, but a test runner's own module system may not (jest
 * before Node 24.9), and a program under test imports this package without ever sending a request
 * from its own module registry (the providers run in Node's).
 */
export function loadGot(): Got {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose (above)
  return (require("got") as { default: Got }).default;
}
