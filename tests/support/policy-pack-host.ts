import { spawn, ChildProcess } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { urnOf } from "./policy-analysis";

/**
 * The ready pack (`policy-pack/`) started as the engine starts it: in a project where the package
 * is installed (its shipped files: package.json, dist/provider, policy-pack), by the project's
 * `@pulumi/pulumi/cmd/run-policy-pack` with the pack folder as its working directory and the
 * stack's name in the environment, then spoken to over gRPC as the engine speaks to it:
 * ConfigureStack, GetAnalyzerInfo, Configure (what a `--policy-pack-config` file sets), Analyze
 * and AnalyzeStack, with resources encoded as the engine encodes them (a protobuf Struct holding
 * the engine's unknown sentinel and secret wrapper as they are, the parent in the options).
 * Everything listens on 127.0.0.1.
 */

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const grpc = require("@grpc/grpc-js");
const services = require("@pulumi/pulumi/proto/analyzer_grpc_pb");
export const proto = require("@pulumi/pulumi/proto/analyzer_pb");
export const { Struct } = require("google-protobuf/google/protobuf/struct_pb");
export const { Empty } = require("google-protobuf/google/protobuf/empty_pb");
/* eslint-enable @typescript-eslint/no-require-imports */

export const REPO = path.resolve(__dirname, "../..");
/** The project name the engine gives the pack. */
export const PROJECT = "email-delivery";
/** The engine's enforcement levels, by number. */
export const LEVEL = proto.EnforcementLevel;
const LEVEL_NAMES = ["advisory", "mandatory", "disabled", "remediate"] as const;

/** A temporary project with the package installed from its shipped files. */
export interface InstalledPack {
  project: string;
  packDir: string;
  remove(): Promise<void>;
}

export async function installPack(): Promise<InstalledPack> {
  const project = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-pack-"));
  const installed = path.join(project, "node_modules", "pulumi-email-delivery");
  await fs.mkdir(installed, { recursive: true });
  for (const shipped of ["package.json", "dist/provider", "policy-pack"]) {
    await fs.cp(path.join(REPO, shipped), path.join(installed, shipped), { recursive: true });
  }
  // The project's own dependencies: @pulumi/pulumi and @pulumi/policy, and the package's zod and
  // tldts (with its core: the Public Suffix List the receivers' DMARC model reads).
  for (const dependency of ["@pulumi", "zod", "tldts", "tldts-core"]) {
    await fs.symlink(
      path.join(REPO, "node_modules", dependency),
      path.join(project, "node_modules", dependency),
    );
  }
  return {
    project,
    packDir: path.join(installed, "policy-pack"),
    remove: () => fs.rm(project, { recursive: true, force: true }),
  };
}

/** A running pack and a client of it. */
export interface Pack {
  child: ChildProcess;
  stderr: string[];
  call<T = any>(method: string, request: unknown): Promise<T>;
  stop(): void;
}

/** Starts the pack for `stack` as the language host does: `run-policy-pack <address> <pack folder>`. */
export async function startPack(installed: InstalledPack, stack: string): Promise<Pack> {
  const runner = path.join(installed.project, "node_modules/@pulumi/pulumi/cmd/run-policy-pack");
  const child = spawn(process.execPath, [runner, "127.0.0.1:0", installed.packDir], {
    cwd: installed.packDir,
    env: { ...process.env, PULUMI_NODEJS_STACK: stack, PULUMI_NODEJS_PROJECT: PROJECT },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr: string[] = [];
  child.stderr!.on("data", (chunk) => stderr.push(String(chunk)));
  // The engine reads the port from the pack's first line on stdout.
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) => resolve(Number(line.trim())));
    child.once("exit", (code) => reject(new Error(`the pack exited (${code}): ${stderr.join("")}`)));
  });
  const client = new services.AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return {
    child,
    stderr,
    call: (method, request) =>
      new Promise((resolve, reject) =>
        client[method](request, (error: unknown, response: any) =>
          error ? reject(error) : resolve(response),
        ),
      ),
    stop() {
      client.close();
      child.kill();
    },
  };
}

/** ConfigureStack, as the engine sends it before anything else. */
export function configureStack(pack: Pack, stack: string): Promise<unknown> {
  const request = new proto.AnalyzerStackConfigureRequest();
  request.setStack(stack);
  request.setProject(PROJECT);
  return pack.call("configureStack", request);
}

/** A policy's entry in a `--policy-pack-config` file: a level, settings, or both. */
export interface PolicyConfigEntry {
  level?: "advisory" | "mandatory" | "disabled";
  properties?: Record<string, unknown>;
}

/** Configure, with what the CLI reads from a `--policy-pack-config` file. */
export function configure(pack: Pack, config: Record<string, PolicyConfigEntry>): Promise<unknown> {
  const request = new proto.ConfigureAnalyzerRequest();
  for (const [policy, entry] of Object.entries(config)) {
    const policyConfig = new proto.PolicyConfig();
    policyConfig.setEnforcementlevel(LEVEL[(entry.level ?? "advisory").toUpperCase()]);
    policyConfig.setProperties(Struct.fromJavaScript(entry.properties ?? {}));
    request.getPolicyconfigMap().set(policy, policyConfig);
  }
  return pack.call("configure", request);
}

/** A resource as the engine describes it to an analyzer. */
export interface WireResource {
  type: string;
  name: string;
  /** Properties as they are on the wire: unknown sentinels and secret wrappers included. */
  props: Record<string, unknown>;
  /** The parent's URN. */
  parent?: string;
  /** URNs it depends on. */
  dependencies?: string[];
}

/** The URN the engine gives `resource` in `stack`. */
export function wireUrn(resource: Pick<WireResource, "type" | "name" | "parent">, stack: string): string {
  return urnOf(resource.type, resource.name, resource.parent, stack);
}

function message(kind: "AnalyzeRequest" | "AnalyzerResource", r: WireResource, stack: string) {
  const request = new proto[kind]();
  request.setType(r.type);
  request.setName(r.name);
  request.setUrn(wireUrn(r, stack));
  request.setProperties(Struct.fromJavaScript(r.props));
  const options = new proto.AnalyzerResourceOptions();
  if (r.parent) options.setParent(r.parent);
  request.setOptions(options);
  if (kind === "AnalyzerResource") {
    if (r.parent) request.setParent(r.parent);
    request.setDependenciesList(r.dependencies ?? []);
  }
  return request;
}

/** One answer of the pack: a violation, or a policy that did not apply (with why). */
export interface Finding {
  policy: string;
  /** The level; "n/a" for not applicable. */
  level: (typeof LEVEL_NAMES)[number] | "n/a";
  /** The URN it is about. */
  urn: string;
  /** The violation's message, or why the policy did not apply. */
  text: string;
}

function findings(response: any, urn: string): Finding[] {
  return [
    ...response.getDiagnosticsList().map((d: any) => ({
      policy: d.getPolicyname(),
      level: LEVEL_NAMES[d.getEnforcementlevel()],
      urn: d.getUrn() || urn,
      text: d.getMessage(),
    })),
    ...response.getNotApplicableList().map((n: any) => ({
      policy: n.getPolicyName(),
      level: "n/a" as const,
      urn,
      text: n.getReason(),
    })),
  ];
}

/** Analyze over one resource's inputs. */
export async function analyze(pack: Pack, resource: WireResource, stack: string): Promise<Finding[]> {
  const response = await pack.call("analyze", message("AnalyzeRequest", resource, stack));
  return findings(response, wireUrn(resource, stack));
}

/** AnalyzeStack over every resource. */
export async function analyzeStack(pack: Pack, resources: WireResource[], stack: string): Promise<Finding[]> {
  const request = new proto.AnalyzeStackRequest();
  request.setResourcesList(resources.map((r) => message("AnalyzerResource", r, stack)));
  return findings(await pack.call("analyzeStack", request), "");
}

/** What the engine asks of a preview or an update: Analyze on each resource, then AnalyzeStack. */
export async function analyzeAll(pack: Pack, resources: WireResource[], stack: string): Promise<Finding[]> {
  const each: Finding[] = [];
  for (const resource of resources) each.push(...(await analyze(pack, resource, stack)));
  return [...each, ...(await analyzeStack(pack, resources, stack))];
}
