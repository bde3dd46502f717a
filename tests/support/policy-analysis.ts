import type { Policies } from "@pulumi/policy";
import * as proto from "@pulumi/pulumi/proto/analyzer_pb";
import { ProgramRun, UNKNOWN, UNKNOWN_MARKER } from "../../testing";
import { toStruct } from "./host-grpc";

/**
 * Policies run as the engine runs them, in this process: each resource through `@pulumi/policy`'s
 * own Analyze handler (the one its gRPC server serves), the stack through its AnalyzeStack handler,
 * with requests built as the engine builds them (properties as a protobuf Struct, unknowns as the
 * engine's sentinel, the parent in the options). What the handlers answer is what the engine
 * prints. Configuration (levels set by a config file) is module-global in `@pulumi/policy` and
 * set only over gRPC: tests/policy/pack.test.ts runs the pack as a process for that.
 */

/** `@pulumi/policy`'s server module: the handlers its gRPC server serves (internal, so untyped). */
interface PolicyServer {
  makeAnalyzeRpcFun: (name: string, version: string, level: string, policies: Policies) => Handler;
  makeAnalyzeStackRpcFun: (name: string, version: string, level: string, policies: Policies) => Handler;
}
type Handler = (call: { request: unknown }, done: (error: unknown, response: never) => void) => void;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const server = require("@pulumi/policy/server") as PolicyServer;

/** The pack name and version the handlers put in their diagnostics. */
const PACK = { name: "email-delivery-posture", version: "0.1.0" };

/** A resource as a test hands it to the policies. */
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
  level: "advisory" | "mandatory" | "disabled" | "remediate";
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

/** Props as the engine sends them: the kit's unknown marker as the engine's sentinel. */
function onWire(value: unknown): unknown {
  if (value === UNKNOWN_MARKER) return UNKNOWN;
  if (Array.isArray(value)) return value.map(onWire);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, onWire(inner)]));
  }
  return value;
}

const structOf = (props: Record<string, unknown>) => toStruct(onWire(props) as Record<string, unknown>);

function options(parent?: string) {
  const opts = new proto.AnalyzerResourceOptions();
  if (parent) opts.setParent(parent);
  return opts;
}

function answer(response: proto.AnalyzeResponse, urnFallback: string): Analysis {
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
  return new Promise<proto.AnalyzeResponse>((resolve, reject) =>
    handler({ request }, (error, response) => (error ? reject(error) : resolve(response))),
  );
}

/** Runs `fn` as the pack process of stack `stack` (the engine sets `PULUMI_NODEJS_STACK`). */
async function asStack<T>(stack: string | undefined, fn: () => Promise<T>): Promise<T> {
  const before = process.env.PULUMI_NODEJS_STACK;
  if (stack === undefined) delete process.env.PULUMI_NODEJS_STACK;
  else process.env.PULUMI_NODEJS_STACK = stack;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.PULUMI_NODEJS_STACK;
    else process.env.PULUMI_NODEJS_STACK = before;
  }
}

/** Analyze: the resource policies over one resource's inputs. */
export async function analyzeResource(
  policies: Policies,
  resource: AnalyzedResource,
  stack: string | undefined = "production",
): Promise<Analysis> {
  const urn = resource.urn ?? urnOf(resource.type, resource.name, resource.parent, stack);
  const request = new proto.AnalyzeRequest();
  request.setType(resource.type);
  request.setName(resource.name);
  request.setUrn(urn);
  request.setProperties(structOf(resource.props));
  request.setOptions(options(resource.parent));
  const analyze = server.makeAnalyzeRpcFun(PACK.name, PACK.version, "advisory", policies);
  return asStack(stack, async () => answer(await call(analyze, request), urn));
}

/** AnalyzeStack: the stack policies over every resource's outputs. */
export async function analyzeStack(
  policies: Policies,
  resources: AnalyzedResource[],
  stack: string | undefined = "production",
): Promise<Analysis> {
  const request = new proto.AnalyzeStackRequest();
  request.setResourcesList(
    resources.map((resource) => {
      const wire = new proto.AnalyzerResource();
      wire.setType(resource.type);
      wire.setName(resource.name);
      wire.setUrn(resource.urn ?? urnOf(resource.type, resource.name, resource.parent, stack));
      wire.setProperties(structOf(resource.props));
      wire.setOptions(options(resource.parent));
      if (resource.parent) wire.setParent(resource.parent);
      wire.setDependenciesList(resource.dependencies ?? []);
      return wire;
    }),
  );
  const analyzeStackFun = server.makeAnalyzeStackRpcFun(PACK.name, PACK.version, "advisory", policies);
  return asStack(stack, async () => answer(await call(analyzeStackFun, request), ""));
}

/**
 * Every policy over a kit run, as the engine runs them over `pulumi preview` (or `up`): Analyze on
 * each registration's inputs, then AnalyzeStack on their outputs (the kit's `state`; a preview's
 * are the inputs, as the engine's are).
 */
export async function analyzeRun(
  policies: Policies,
  run: ProgramRun<string>,
  stack = "production",
): Promise<Analysis> {
  // The stack resource too, as the engine analyzes every registration; it is every top-level
  // resource's parent, and the engine sends its URN as theirs.
  const registered = run.registrations.filter((r) => r.urn);
  const resources = registered.map((r) => ({
    type: r.type,
    name: r.name,
    urn: r.urn!,
    parent: r.parent,
    dependencies: r.dependencies,
  }));
  // One after another: each sets the stack's name in the environment for its handler.
  const each: Analysis[] = [];
  for (const [index, r] of registered.entries()) {
    each.push(await analyzeResource(policies, { ...resources[index], props: r.inputs }, stack));
  }
  const whole = await analyzeStack(
    policies,
    registered.map((r, index) => ({ ...resources[index], props: r.state ?? r.inputs })),
    stack,
  );
  return {
    diagnostics: [...each.flatMap((a) => a.diagnostics), ...whole.diagnostics],
    notApplicable: [...each.flatMap((a) => a.notApplicable), ...whole.notApplicable],
  };
}
