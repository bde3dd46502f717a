/**
 * jest `setupFiles`: @pulumi/pulumi's function serialization loads on first use, not at import.
 *
 * `@pulumi/pulumi/runtime` requires its closure serializer and code-path finder when it loads, and
 * with them the TypeScript compiler (9 MB) and npm's arborist. In a Pulumi program that costs one
 * load, but jest compiles every module anew for each test file: that was about 25 s of the suite's
 * CPU, in files that never serialize a function (this package's resources store a loader text, see
 * `provider/providers/loader.ts`). The functions `runtime/index.js` copies out at load are
 * forwarders here; any use loads the real module (`tests/client/serialization.test.ts` does).
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
