/**
 * jest `setupFilesAfterEnv`: three things @pulumi/pulumi does that cost one load in a Pulumi
 * program but are paid again and again in a jest worker, which runs many test files and compiles
 * every module anew for each. None changes what a test observes; processes outside jest (provider
 * hosts, installed projects, users' own tests) load @pulumi/pulumi as it is.
 *
 * 1. Its function serializer loads on first use, not at import. `@pulumi/pulumi/runtime` requires
 *    its closure serializer and code-path finder when it loads, and with them the TypeScript
 *    compiler (9 MB) and npm's arborist: about 25 s of the suite's CPU, in files that never
 *    serialize a function (this package's resources store a loader text, see
 *    `provider/providers/loader.ts`). The functions `runtime/index.js` copies out at load are
 *    forwarders here; any use loads the real module (`tests/client/serialization.test.ts` does).
 * 2. The debugger it turns on to serialize is turned off when the file ends. Serializing opens an
 *    inspector session with the debugger enabled (`runtime/closure/v8Hooks.js`) and never closes
 *    it: a program serializes once and exits. Left open in a worker, every module each later file
 *    compiles is reported to it and compiles slower: about 9% more CPU after one such file.
 * 3. The stack each of its promises records is left empty. `runtime/debuggable.js` stores
 *    `new Error().stack` on every promise it makes (several per resource registration) for its
 *    leak report; under jest each such stack is mapped through the test files' source maps:
 *    about 10% of the CPU of files that run programs. Only that report would read them.
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

jest.mock("@pulumi/pulumi/runtime/debuggable", () => {
  const actual = jest.requireActual("@pulumi/pulumi/runtime/debuggable") as {
    debuggablePromise<T>(promise: Promise<T>, context: unknown): Promise<T>;
  };
  return {
    ...actual,
    debuggablePromise: <T>(promise: Promise<T>, context: unknown): Promise<T> => {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        return actual.debuggablePromise(promise, context);
      } finally {
        Error.stackTraceLimit = limit;
      }
    },
  };
});
