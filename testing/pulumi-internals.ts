import { createRequire } from "node:module";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { Struct as StructType } from "google-protobuf/google/protobuf/struct_pb";
import { SECRET_SIG, SECRET_SIG_KEY, UNKNOWN } from "./engine-wire";
import { assertPulumiInternals, attempt, Internal, property, PulumiSdk } from "./pulumi-sdk-check";

/**
 * Every part of `@pulumi/pulumi` the kit uses that is not its public API (what a program or a unit
 * test written from Pulumi's docs uses: `setMocks`, the mocks' types, `isUnknown`, …): the
 * runtime's own functions, objects and files, which a minor release may change. Nothing else in
 * `testing/` reaches into the SDK. Each is checked when the kit loads (what only a run has, when the
 * run begins): a release that changed one fails with one error naming the version found and the
 * supported range, not with a TypeError in the middle of a run. Each was checked against 3.248.0
 * and 3.276.0 (`CHECKED_PULUMI_VERSIONS`): the installed one by
 * `tests/testing/pulumi-internals.test.ts`, any other by `npx tsx tests/support/pulumi-versions.ts`.
 *
 * Followed, not reached into (the engine's conventions, not checked here): dynamic resources'
 * type prefix and `__provider` input (run-types.ts), the host's initialization failures
 * (run-mocks.ts), the runtime's `info: [runtime] …` lines without an engine (run-captures.ts).
 */

/**
 * `runtime.waitForRPCs()` (runtime/settings.js, `@internal`, untyped): resolves when the runtime's
 * queue of resource-monitor calls is empty, as `pulumi up`'s language host waits for it before it
 * exits. The kit waits on it to know that a program has registered all it will.
 */
const WAIT_FOR_RPCS = runtimeFunction("waitForRPCs");
/**
 * `runtime.setAllConfig(config, secretKeys)` (runtime/config.js): the language host's way to give a
 * program its stack config; the kit gives a run's program the config its providers get.
 */
const SET_ALL_CONFIG = runtimeFunction("setAllConfig");
/**
 * `runtime.runInPulumiStack(init)` (runtime/stack.js): the language host's root `pulumi:pulumi:Stack`
 * resource around the program, so top-level resources have the parent they have under `pulumi up`.
 */
const RUN_IN_PULUMI_STACK = runtimeFunction("runInPulumiStack");
/**
 * `runtime.getMonitor()` (runtime/settings.js), which under `setMocks` is the mock monitor
 * (runtime/mocks.js `MockMonitor`). The mocks' `newResource` does not see a registration's parent,
 * dependencies or provider, so the kit wraps the monitor's `registerResource(request, callback)` to
 * read them from the request, whose getters are those of proto/resource_pb.js
 * `RegisterResourceRequest`. The kit relies on the mock monitor calling `newResource` before its
 * first `await` (so the registration and the answer pair up); the pinned test checks that too.
 */
const GET_MONITOR = runtimeFunction("getMonitor");
const REGISTER_RESOURCE_REQUEST: Internal = {
  name: "proto/resource_pb RegisterResourceRequest",
  problem: (sdk) => {
    const request = property(
      attempt(() => sdk.load("./proto/resource_pb")),
      "RegisterResourceRequest",
    );
    const prototype = property(request, "prototype");
    const getters = [
      "getType",
      "getName",
      "getCustom",
      "getParent",
      "getProvider",
      "getDependenciesList",
      "getPropertydependenciesMap",
    ];
    const missing = getters.filter((getter) => typeof property(prototype, getter) !== "function");
    return missing.length === 0 ? undefined : `no ${missing.join(", ")} (expected the request's getters)`;
  },
};
/**
 * `cmd/dynamic-provider` and its dependency `require-from-string`: the dynamic-provider host
 * evaluates a resource's `__provider` text with it, in Node's own module system and realm; the kit
 * runs providers the same way (node-realm.ts).
 */
const REQUIRE_FROM_STRING: Internal = {
  name: "cmd/dynamic-provider's require-from-string",
  problem: (sdk) =>
    typeof attempt(() => sdk.load("require-from-string", "cmd/dynamic-provider/index.js")) === "function"
      ? undefined
      : "not found (expected a function, as the dynamic-provider host loads it)",
};
/**
 * `google-protobuf`'s `Struct`, as the SDK depends on it (not necessarily the project's copy): what
 * crosses the gRPC boundary is `Struct.fromJavaScript(x).toJavaScript()`; the kit passes a
 * provider's results through it as the host does.
 */
const STRUCT: Internal = {
  name: "google-protobuf Struct (the SDK's dependency)",
  problem: (sdk) => {
    const struct = property(
      attempt(() => sdk.load("google-protobuf/google/protobuf/struct_pb")),
      "Struct",
    );
    return typeof property(struct, "fromJavaScript") === "function" &&
      typeof property(property(struct, "prototype"), "toJavaScript") === "function"
      ? undefined
      : "not found (expected Struct.fromJavaScript and toJavaScript)";
  },
};
/**
 * The values the engine's wire uses (runtime/rpc.js `unknownValue`, `specialSigKey`,
 * `specialSecretSig`), which engine-wire.ts defines again for the providers and the kit.
 */
const WIRE_VALUES: Internal = {
  name: "runtime.unknownValue, specialSigKey, specialSecretSig",
  problem: (sdk) => {
    const runtime = property(sdk.pulumi, "runtime");
    const expected = { unknownValue: UNKNOWN, specialSigKey: SECRET_SIG_KEY, specialSecretSig: SECRET_SIG };
    const differ = Object.entries(expected).filter(([key, value]) => property(runtime, key) !== value);
    return differ.length === 0
      ? undefined
      : `${differ.map(([key]) => key).join(", ")} not as engine-wire.ts has them`;
  },
};

/** What the kit checks when it loads. */
export const LOAD_INTERNALS: readonly Internal[] = [
  WAIT_FOR_RPCS,
  SET_ALL_CONFIG,
  RUN_IN_PULUMI_STACK,
  GET_MONITOR,
  REGISTER_RESOURCE_REQUEST,
  REQUIRE_FROM_STRING,
  STRUCT,
  WIRE_VALUES,
];

/** What the kit checks once a run's `setMocks` has made them (see GET_MONITOR above). */
export const RUN_INTERNALS: readonly Internal[] = [
  {
    name: "the mock monitor's registerResource(request, callback)",
    problem: (sdk) => {
      const monitor = attempt(() =>
        (property(property(sdk.pulumi, "runtime"), "getMonitor") as () => unknown)(),
      );
      const register = property(monitor, "registerResource");
      return typeof register === "function" && register.length === 2
        ? undefined
        : "not found (expected a method of two parameters)";
    },
  },
  /**
   * `globalThis.globalStore.leakCandidates` (runtime/state.js `LocalStore`, runtime/debuggable.js):
   * the runtime keeps each of its promises there until it settles and, at exit, reports those left
   * and sets exit code 1. A stopped run's program leaves some; the kit reported its errors itself
   * and forgets them, as the engine never reports a failed program's leftovers.
   */
  {
    name: "globalStore.leakCandidates",
    problem: (sdk) =>
      property(sdk.globalStore(), "leakCandidates") instanceof Set ? undefined : "not found (expected a Set)",
  },
  /**
   * An output's `promise(withUnknowns)` (output.js `OutputImpl`): how the runtime itself reads a
   * value with its unknowns; `apply` skips them. The kit reads a program's outputs with it.
   */
  {
    name: "Output.promise(withUnknowns)",
    problem: (sdk) => {
      const output = attempt(() =>
        (property(sdk.pulumi, "output") as (value: unknown) => unknown)(undefined),
      );
      return typeof property(output, "promise") === "function"
        ? undefined
        : "not found (expected a function)";
    },
  },
];

/** An `@pulumi/pulumi` as the checks read it: `module`, installed in the folder of `entry` (its index.js). */
export function sdkAt(module: unknown, entry: string): PulumiSdk {
  const root = path.dirname(entry);
  const load = (id: string, from = "index.js") => createRequire(path.join(root, from))(id);
  return {
    version: String(
      property(
        attempt(() => load("./package.json")),
        "version",
      ) ?? "(unknown version)",
    ),
    root,
    pulumi: module,
    load,
    globalStore: () => (globalThis as { globalStore?: unknown }).globalStore,
  };
}

// --- the kit's copy, checked at load -----------------------------------------------------------------

/** The kit's own `@pulumi/pulumi` (under jest, the test file's), as the checks read it. */
export const installed = sdkAt(pulumi, require.resolve("@pulumi/pulumi"));
assertPulumiInternals(installed, LOAD_INTERNALS);

/** Checks what a run's `setMocks` made (call it after `setMocks`). */
export function assertRunInternals(): void {
  assertPulumiInternals(installed, RUN_INTERNALS);
}

const runtime = pulumi.runtime as unknown as {
  waitForRPCs(): Promise<void>;
};

/** See WAIT_FOR_RPCS. */
export const waitForRPCs = (): Promise<void> => runtime.waitForRPCs();
/** See SET_ALL_CONFIG. */
export const setAllConfig = (config: Record<string, string>, secretKeys: string[]): void =>
  pulumi.runtime.setAllConfig(config, secretKeys);
/** See RUN_IN_PULUMI_STACK. */
export const runInPulumiStack = (init: () => Promise<undefined>): Promise<unknown> =>
  pulumi.runtime.runInPulumiStack(init);

/** A registration request as the mock monitor receives it (see GET_MONITOR). */
export interface RegisterResourceRequest {
  getType(): string;
  getName(): string;
  getCustom(): boolean;
  getParent(): string;
  getProvider(): string;
  getDependenciesList(): string[];
  getPropertydependenciesMap(): {
    forEach(fn: (deps: { getUrnsList(): string[] }, key: string) => void): void;
  };
}
/** How the mock monitor answers a registration. */
export type RegisterResourceCallback = (error: unknown, response?: { getUrn(): string }) => void;
/** The mock monitor, as far as the kit uses it. */
export interface MockMonitor {
  registerResource(request: RegisterResourceRequest, callback: RegisterResourceCallback): Promise<void>;
}
/** The run's mock monitor (see GET_MONITOR). */
export const mockMonitor = (): MockMonitor => pulumi.runtime.getMonitor() as unknown as MockMonitor;

/** A value with its unknowns, as the runtime reads it (see RUN_INTERNALS: Output.promise). */
export const outputValue = (value: unknown): Promise<unknown> =>
  (pulumi.output(value) as unknown as { promise(withUnknowns?: boolean): Promise<unknown> }).promise(true);

/** Forgets the promises the runtime keeps for its leak report (see RUN_INTERNALS: leakCandidates). */
export function forgetLeakCandidates(): void {
  const store = (globalThis as { globalStore?: { leakCandidates?: Set<unknown> } }).globalStore;
  store?.leakCandidates?.clear();
}

/** The dynamic-provider host's `require` (see REQUIRE_FROM_STRING). */
export const hostRequire = createRequire(require.resolve("@pulumi/pulumi/cmd/dynamic-provider"));
/** Evaluates module text as the dynamic-provider host does (see REQUIRE_FROM_STRING). */
export const requireFromString = hostRequire("require-from-string") as (
  code: string,
  filename?: string,
) => unknown;

let struct: typeof StructType | undefined;
/** google-protobuf's `Struct` as the SDK has it (see STRUCT). */
export function pulumiStruct(): typeof StructType {
  struct ??= (installed.load("google-protobuf/google/protobuf/struct_pb") as { Struct: typeof StructType })
    .Struct;
  return struct;
}

/**
 * `@pulumi/pulumi/tsutils` (`typeScriptRequireStrings`, `loadTypeScriptCompilerOptions`): how
 * `@pulumi/pulumi/cmd/run` finds ts-node and TypeScript and reads a project's compiler options; the
 * kit registers ts-node for a TypeScript program file the same way (program-file.ts), with the
 * project's own copy of the SDK, checked when first used.
 */
export const PROJECT_INTERNALS: readonly Internal[] = [
  {
    name: "tsutils (typeScriptRequireStrings, loadTypeScriptCompilerOptions)",
    problem: (sdk) => {
      const utils = attempt(() => sdk.load("./tsutils"));
      return typeof property(utils, "typeScriptRequireStrings") === "function" &&
        typeof property(utils, "loadTypeScriptCompilerOptions") === "function"
        ? undefined
        : "not found (expected both functions)";
    },
  },
];

/** See PROJECT_INTERNALS. */
export interface TypeScriptUtils {
  typeScriptRequireStrings(): { tsnodeRequire: string; typescriptRequire: string };
  loadTypeScriptCompilerOptions(file: string): Record<string, unknown>;
}

/** `@pulumi/pulumi/tsutils` of the project in `project`: the copy its language host would use. */
export function projectTypeScriptUtils(project: string): TypeScriptUtils {
  const sdk = sdkAt(undefined, createRequire(`${project}/`).resolve("@pulumi/pulumi"));
  assertPulumiInternals(sdk, PROJECT_INTERNALS);
  return sdk.load("./tsutils") as TypeScriptUtils;
}

/** A function of the runtime (`pulumi.runtime.name`). */
function runtimeFunction(name: string): Internal {
  return {
    name: `runtime.${name}`,
    problem: (sdk) =>
      typeof property(property(sdk.pulumi, "runtime"), name) === "function"
        ? undefined
        : "not found (expected a function)",
  };
}
