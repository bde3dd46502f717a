/**
 * jest `setupFilesAfterEnv`: @pulumi/pulumi's function serialization loads on first use, not at
 * import, and the debugger it turns on is turned off when the test file ends.
 *
 * `@pulumi/pulumi/runtime` requires its closure serializer and code-path finder when it loads, and
 * with them the TypeScript compiler (9 MB) and npm's arborist. In a Pulumi program that costs one
 * load, but jest compiles every module anew for each test file: that was about 25 s of the suite's
 * CPU, in files that never serialize a function (this package's resources store a loader text, see
 * `provider/providers/loader.ts`). The functions `runtime/index.js` copies out at load are
 * forwarders here; any use loads the real module (`tests/client/serialization.test.ts` does).
 *
 * Serializing opens an inspector session with the debugger enabled (`runtime/closure/v8Hooks.js`)
 * and never closes it: a program serializes once and exits. A jest worker runs many files, and
 * with the debugger on, every module each later file compiles is reported to that session (and to
 * one more per serializing file), and compiles slower: about 9% of a worker's CPU after one such
 * file. The session is closed when its file ends; the next file that serializes opens its own.
 *
 * Processes outside jest (provider hosts, installed projects) load @pulumi/pulumi as it is.
 */
function deferred(modulePath: string, functions: string[]): object {
  let actual: Record<string | symbol, unknown> | undefined;
  const load = () => (actual ??= jest.requireActual(modulePath));
  const forwarders = new Map<string | symbol, unknown>(
    functions.map((name) => [
      name,
      (...args: unknown[]) => (load()[name] as (...args: unknown[]) => unknown)(...args),
    ]),
  );
  return new Proxy({}, { get: (_, key) => forwarders.get(key) ?? load()[key] });
}

jest.mock("@pulumi/pulumi/runtime/closure/serializeClosure", () =>
  deferred("@pulumi/pulumi/runtime/closure/serializeClosure", [
    "serializeFunction",
    "serializeFunctionAsync",
  ]),
);
jest.mock("@pulumi/pulumi/runtime/closure/codePaths", () =>
  deferred("@pulumi/pulumi/runtime/closure/codePaths", ["computeCodePaths"]),
);

interface InspectorSession {
  disconnect(): void;
}
/** The sessions this file's serializations opened (one at most: v8Hooks keeps its own). */
const sessions = new Set<InspectorSession>();
jest.mock("@pulumi/pulumi/runtime/closure/v8Hooks", () => {
  const actual = jest.requireActual("@pulumi/pulumi/runtime/closure/v8Hooks") as {
    getSessionAsync(): Promise<InspectorSession>;
  };
  return {
    ...actual,
    getSessionAsync: async () => {
      const session = await actual.getSessionAsync();
      sessions.add(session);
      return session;
    },
  };
});
afterAll(() => {
  for (const session of sessions) session.disconnect();
  sessions.clear();
});
