/**
 * jest `setupFilesAfterEnv`: four things @pulumi/pulumi does that cost once in a Pulumi program
 * but are paid again and again in a jest worker, which runs many test files and loads every module
 * anew for each (once per module registry: `jest.isolateModules` and `jest.resetModules` make
 * more). In the current suite none changes what a test observes; processes outside jest (provider
 * hosts, installed projects, users' own tests) load @pulumi/pulumi as it is.
 *
 * 1. Its function serializer loads on first use, not at import. `@pulumi/pulumi/runtime` requires
 *    its closure serializer and code-path finder when it loads, and with them the TypeScript
 *    compiler (9 MB) and npm's arborist: about 25 s of the suite's CPU, in files that never
 *    serialize a function (this package's resources store a loader text, see
 *    `provider/dynamic/loader.ts`). The functions `runtime/index.js` copies out at load are
 *    forwarders here; any use loads the real module (as the files `support/sequencer.js` lists
 *    as serializing do).
 * 2. The debugger it turns on to serialize is turned off after the file's tests. Serializing opens
 *    an inspector session with the debugger enabled (`runtime/closure/v8Hooks.js`) and never
 *    closes it: a program serializes once and exits. Left open in a worker, every module each later
 *    file compiles is reported to it and compiles slower: about 9% more CPU after one such file.
 * 3. The stack each of its promises records has no frames. `runtime/debuggable.js` stores
 *    `new Error().stack` on every promise it makes (several per resource registration) for its
 *    leak report; under jest each such stack is mapped through the test files' source maps:
 *    about 10% of the CPU of files that run programs. Only that report's details read them, and
 *    with `PULUMI_DEBUG_PROMISE_LEAKS` set, which asks for those details, they are kept.
 * 4. The AsyncLocalStorage each test file makes is given up when the next file starts. Pulumi's
 *    runtime makes one per file (on the file's `global`), as do the kit and jest-circus (one per
 *    module registry), and an AsyncLocalStorage once used stays in Node 20's list for good: every
 *    promise made later in the worker is offered to each one ever used (`_propagate`). After 50
 *    files that was about 10% of a worker's CPU, growing with every file.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import * as inspector from "node:inspector";
import * as v8 from "node:v8";

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

/**
 * The inspector session Pulumi's serializer uses in this test file, opened on first use. It is
 * held here rather than in `v8Hooks` so that closing it also forgets it: a serialization after
 * the close opens a new one instead of using a closed session.
 */
let mockInspectorSession: Promise<inspector.Session> | undefined;
/** Script id to URL, as the sessions report them; shared by every module registry of the file. */
const mockScriptUrls = new Map<string, string>();

/**
 * `runtime/closure/v8Hooks.js` as published, except that the session lives above and hears of
 * scripts from the moment it is enabled: enabling reports every script already compiled, which
 * the original, listening only afterwards, misses. Those URLs only name places in serialization
 * errors; the serialized text is the same.
 */
jest.mock("@pulumi/pulumi/runtime/closure/v8Hooks", () => {
  // Pulumi's v8.js, which reads scripts through this session, needs the flag the original sets.
  v8.setFlagsFromString("--allow-natives-syntax");
  const connect = async (): Promise<inspector.Session> => {
    const session = new inspector.Session();
    session.connect();
    session.addListener("Debugger.scriptParsed", ({ params }) =>
      mockScriptUrls.set(params.scriptId, params.url),
    );
    await new Promise((resolve, reject) =>
      session.post("Debugger.enable", (err, res) => (err ? reject(err) : resolve(res))),
    );
    return session;
  };
  const getSessionAsync = () => (mockInspectorSession ??= connect());
  return {
    __esModule: true,
    getSessionAsync,
    isInitializedAsync: async () => void (await getSessionAsync()),
    getScriptUrl: (id: string) => mockScriptUrls.get(id),
  };
});
// Setup files' hooks run before the test file's own: a file whose own afterAll serializes opens
// a session that stays open until its worker exits (slower, never wrong).
afterAll(async () => {
  const session = mockInspectorSession;
  mockInspectorSession = undefined;
  (await session)?.disconnect();
});

jest.mock("@pulumi/pulumi/runtime/debuggable", () => {
  const actual = jest.requireActual("@pulumi/pulumi/runtime/debuggable") as {
    debugPromiseLeaks: boolean;
    debuggablePromise<T>(promise: Promise<T>, context: unknown): Promise<T>;
  };
  const debuggablePromise = <T>(promise: Promise<T>, context: unknown): Promise<T> => {
    if (actual.debugPromiseLeaks) return actual.debuggablePromise(promise, context);
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return actual.debuggablePromise(promise, context);
    } finally {
      Error.stackTraceLimit = limit;
    }
  };
  // A live view, not a copy: debuggable.js is part of an import cycle (log, settings) and may be
  // read before it has finished loading.
  return new Proxy(actual, {
    get: (target, key) => (key === "debuggablePromise" ? debuggablePromise : Reflect.get(target, key)),
  });
});

/**
 * The AsyncLocalStorages first used since the previous test file of this worker started, kept on
 * the class itself: Node's own module, shared by every file's realm (each file has its own
 * `process` object). Node 20 adds one to its list on first use (`_enable`); `disable()` takes it
 * out again, and a later use would put it back. Node 24, with AsyncContextFrame, has no such list
 * and no `_enable`: nothing to do there.
 */
const enabledSinceLastFile = Symbol.for("pulumi-email-delivery/tests/async-local-storages");
type Tracked = typeof AsyncLocalStorage.prototype & { _enable?(): void };
const worker = AsyncLocalStorage as unknown as Record<symbol, Set<Tracked> | undefined>;
const prototype = AsyncLocalStorage.prototype as Tracked;
const enable = prototype._enable;
if (enable !== undefined) {
  const previousFiles = worker[enabledSinceLastFile];
  if (previousFiles === undefined) {
    const tracked = new Set<Tracked>();
    worker[enabledSinceLastFile] = tracked;
    prototype._enable = function (this: Tracked) {
      enable.call(this);
      tracked.add(this);
    };
  } else {
    for (const storage of previousFiles) storage.disable();
    previousFiles.clear();
  }
}
