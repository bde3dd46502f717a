import * as path from "node:path";
import { UNKNOWN } from "./engine-wire";
import { UNKNOWN_MARKER, type ProgramRun } from "./run-types";

/**
 * Policies run as the engine runs them, in this process: each resource through `@pulumi/policy`'s
 * own Analyze handler (the one its gRPC server serves), the stack through its AnalyzeStack handler,
 * with requests built as the engine builds them (properties as a protobuf Struct, unknowns as the
 * engine's sentinel, the parent in the options). What the handlers answer is what the engine
 * prints. Configuration (levels and settings from a config file) is module-global in
 * `@pulumi/policy` and set only over gRPC, so here a policy runs with its own level and defaults.
 *
 * `@pulumi/policy` is an optional peer dependency: it is loaded on the first analysis, never when
 * the kit loads, and its absence is said in one error. Its types are not used in any signature
 * here, so a project without it still type-checks the kit.
 */

/** A policy as `@pulumi/policy` takes it (its `Policy`), untyped here: the peer may be absent. */
export type AnyPolicy = object;

/** An enforcement level, as `@pulumi/policy` names them. */
export type PolicyLevel = "advisory" | "mandatory" | "remediate" | "disabled";

/** `@pulumi/policy`'s server module: the handlers its gRPC server serves (internal, so untyped). */
interface PolicyServer {
  makeAnalyzeRpcFun: (
    name: string,
    version: string,
    level: string,
    policies: readonly AnyPolicy[],
  ) => Handler;
  makeAnalyzeStackRpcFun: (
    name: string,
    version: string,
    level: string,
    policies: readonly AnyPolicy[],
  ) => Handler;
}
type Handler = (
  call: { request: unknown },
  done: (error: unknown, response: AnalyzeResponse) => void,
) => void;

/** The parts of the generated protobuf messages used here (`@pulumi/pulumi/proto/analyzer_pb`). */
interface Message {
  [setter: string]: (value: never) => void;
}
interface AnalyzeResponse {
  getDiagnosticsList(): {
    getPolicyname(): string;
    getEnforcementlevel(): number;
    getMessage(): string;
    getUrn(): string;
  }[];
  getNotApplicableList(): { getPolicyName(): string; getReason(): string }[];
}
interface PolicyModules {
  server: PolicyServer;
  proto: Record<
    "AnalyzeRequest" | "AnalyzeStackRequest" | "AnalyzerResource" | "AnalyzerResourceOptions",
    new () => Message
  >;
  Struct: { fromJavaScript(value: Record<string, unknown>): unknown };
}

let loaded: PolicyModules | undefined;

/**
 * `@pulumi/policy`'s handlers, and the messages of the `@pulumi/pulumi` and `google-protobuf` it
 * uses, found from where this module is (so from the project that installed the package).
 * @internal `resolve` is for the kit's own tests.
 */
export function loadPolicyModules(resolve: (id: string) => string = require.resolve): PolicyModules {
  if (loaded && resolve === require.resolve) return loaded;
  let serverFile: string;
  try {
    serverFile = resolve("@pulumi/policy/server");
  } catch (error) {
    if ((error as { code?: string }).code !== "MODULE_NOT_FOUND") throw error;
    throw new Error(
      "checkPolicies needs @pulumi/policy (1.21 or newer), which is not installed: it is an optional " +
        "peer dependency of pulumi-email-delivery. Install it beside the package: npm install --save-dev @pulumi/policy",
      { cause: error },
    );
  }
  const fromPolicy = (id: string) => require.resolve(id, { paths: [path.dirname(serverFile)] });
  // Required here, not imported: the kit loads without the optional peer.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const modules: PolicyModules = {
    server: require(serverFile) as PolicyServer,
    proto: require(fromPolicy("@pulumi/pulumi/proto/analyzer_pb")) as PolicyModules["proto"],
    Struct: (
      require(fromPolicy("google-protobuf/google/protobuf/struct_pb")) as Pick<PolicyModules, "Struct">
    ).Struct,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  if (resolve === require.resolve) loaded = modules;
  return modules;
}

/** The pack name and version the handlers put in their diagnostics. */
const PACK = { name: "email-delivery-posture", version: "0.1.0" };

/** A resource as the policies get it. */
export interface AnalyzedResource {
  type: string;
  name: string;
  urn?: string;
  /** The parent's URN. */
  parent?: string;
  /** URNs it depends on (AnalyzeStack). */
  dependencies?: string[];
  /** Inputs (Analyze) or outputs (AnalyzeStack); {@link UNKNOWN_MARKER} or `UNKNOWN` where unknown. */
  props: Record<string, unknown>;
}

/** One diagnostic, as the engine prints it. */
export interface Diagnostic {
  policy: string;
  level: PolicyLevel;
  message: string;
  /** The resource it is about ("" for a stack diagnostic without one). */
  urn: string;
}

/** What the policies said: violations, and where they did not apply (with why). */
export interface Analysis {
  diagnostics: Diagnostic[];
  notApplicable: { policy: string; reason: string; urn: string }[];
}

const LEVELS = ["advisory", "mandatory", "disabled", "remediate"] as const;

/** The URN the engine would give a top-level resource, or a child of `parent`. */
export function urnOf(type: string, name: string, parent?: string, stack = "production"): string {
  const parentTypes = parent ? `${parent.split("::")[2]}$` : "";
  return `urn:pulumi:${stack}::email-delivery::${parentTypes}${type}::${name}`;
}

/** Props as the engine sends them: the kit's unknown marker as the engine's sentinel, no `undefined`. */
function onWire(value: unknown): unknown {
  if (value === UNKNOWN_MARKER) return UNKNOWN;
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : onWire(item)));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, inner]) => inner !== undefined)
        .map(([key, inner]) => [key, onWire(inner)]),
    );
  }
  return value;
}

function resourceMessage(
  modules: PolicyModules,
  kind: "AnalyzeRequest" | "AnalyzerResource",
  r: AnalyzedResource,
  stack: string,
) {
  const message = new modules.proto[kind]();
  const options = new modules.proto.AnalyzerResourceOptions();
  if (r.parent) options.setParent(r.parent as never);
  message.setType(r.type as never);
  message.setName(r.name as never);
  message.setUrn((r.urn ?? urnOf(r.type, r.name, r.parent, stack)) as never);
  message.setProperties(modules.Struct.fromJavaScript(onWire(r.props) as Record<string, unknown>) as never);
  message.setOptions(options as never);
  if (kind === "AnalyzerResource") {
    if (r.parent) message.setParent(r.parent as never);
    message.setDependenciesList((r.dependencies ?? []) as never);
  }
  return message;
}

function answer(response: AnalyzeResponse, urnFallback: string): Analysis {
  return {
    diagnostics: response.getDiagnosticsList().map((d) => ({
      policy: d.getPolicyname(),
      level: LEVELS[d.getEnforcementlevel()],
      message: d.getMessage(),
      urn: d.getUrn() || urnFallback,
    })),
    notApplicable: response.getNotApplicableList().map((n) => ({
      policy: n.getPolicyName(),
      reason: n.getReason(),
      urn: urnFallback,
    })),
  };
}

function call(handler: Handler, request: unknown) {
  return new Promise<AnalyzeResponse>((resolve, reject) =>
    handler({ request }, (error, response) => (error ? reject(error) : resolve(response))),
  );
}

/** Analyses one after another: each sets the stack's name in the environment while it runs. */
let queue: Promise<unknown> = Promise.resolve();

/** Runs `fn` as the pack process of stack `stack` (the engine sets `PULUMI_NODEJS_STACK`). */
function asStack<T>(stack: string | undefined, fn: () => Promise<T>): Promise<T> {
  const turn = queue.then(async () => {
    const before = process.env.PULUMI_NODEJS_STACK;
    if (stack === undefined) delete process.env.PULUMI_NODEJS_STACK;
    else process.env.PULUMI_NODEJS_STACK = stack;
    try {
      return await fn();
    } finally {
      if (before === undefined) delete process.env.PULUMI_NODEJS_STACK;
      else process.env.PULUMI_NODEJS_STACK = before;
    }
  });
  queue = turn.catch(() => undefined);
  return turn;
}

/** Analyze: the resource policies over one resource's inputs. */
export function analyzeResource(
  policies: readonly AnyPolicy[],
  resource: AnalyzedResource,
  stack: string | undefined = "production",
): Promise<Analysis> {
  const modules = loadPolicyModules();
  const request = resourceMessage(modules, "AnalyzeRequest", resource, stack ?? "production");
  const urn = resource.urn ?? urnOf(resource.type, resource.name, resource.parent, stack);
  const analyze = modules.server.makeAnalyzeRpcFun(PACK.name, PACK.version, "advisory", policies);
  return asStack(stack, async () => answer(await call(analyze, request), urn));
}

/** AnalyzeStack: the stack policies over every resource's outputs. */
export function analyzeStack(
  policies: readonly AnyPolicy[],
  resources: AnalyzedResource[],
  stack: string | undefined = "production",
): Promise<Analysis> {
  const modules = loadPolicyModules();
  const request = new modules.proto.AnalyzeStackRequest();
  request.setResourcesList(
    resources.map((r) => resourceMessage(modules, "AnalyzerResource", r, stack ?? "production")) as never,
  );
  const analyzeStackFun = modules.server.makeAnalyzeStackRpcFun(
    PACK.name,
    PACK.version,
    "advisory",
    policies,
  );
  return asStack(stack, async () => answer(await call(analyzeStackFun, request), ""));
}

/**
 * Every policy over a kit run, as the engine runs them over `pulumi preview` (or `up`): Analyze on
 * each registration's inputs, then AnalyzeStack on their outputs (the kit's `state`; a preview's
 * are the inputs, as the engine's are). The stack resource too, as the engine analyzes every
 * registration: it is every top-level resource's parent.
 */
export async function analyzeRun(
  policies: readonly AnyPolicy[],
  run: Pick<ProgramRun<string>, "registrations">,
  stack = "production",
): Promise<Analysis> {
  const registered = run.registrations.filter((r) => r.urn);
  const resource = (r: (typeof registered)[number]) => ({
    type: r.type,
    name: r.name,
    urn: r.urn!,
    parent: r.parent,
    dependencies: r.dependencies,
  });
  const each: Analysis[] = [];
  for (const r of registered)
    each.push(await analyzeResource(policies, { ...resource(r), props: r.inputs }, stack));
  const whole = await analyzeStack(
    policies,
    registered.map((r) => ({ ...resource(r), props: r.state ?? r.inputs })),
    stack,
  );
  return {
    diagnostics: [...each.flatMap((a) => a.diagnostics), ...whole.diagnostics],
    notApplicable: [...each.flatMap((a) => a.notApplicable), ...whole.notApplicable],
  };
}
