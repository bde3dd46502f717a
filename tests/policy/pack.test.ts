import { spawn, ChildProcess } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { TYPE_TOKENS } from "../../src/resources/type-tokens";
import { POLICY_NAMES } from "../../src/policy";
import { urnOf } from "../support/policy-analysis";

/**
 * The ready pack (`policy-pack/`) started as the engine starts it: in a project where the package
 * is installed (its shipped files: package.json, dist/src, policy-pack), by the project's
 * `@pulumi/pulumi/cmd/run-policy-pack` with the pack folder as its working directory and the
 * stack's name in the environment, then spoken to over gRPC as the engine speaks to it:
 * ConfigureStack, GetAnalyzerInfo, Configure (what a `--policy-pack-config` file sets), Analyze
 * and AnalyzeStack.
 */

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const grpc = require("@grpc/grpc-js");
const services = require("@pulumi/pulumi/proto/analyzer_grpc_pb");
const proto = require("@pulumi/pulumi/proto/analyzer_pb");
const { Struct } = require("google-protobuf/google/protobuf/struct_pb");
const { Empty } = require("google-protobuf/google/protobuf/empty_pb");
/* eslint-enable @typescript-eslint/no-require-imports */

const REPO = path.resolve(__dirname, "../..");
let project: string;
let packDir: string;

beforeAll(async () => {
  project = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-pack-"));
  const installed = path.join(project, "node_modules", "pulumi-email-delivery");
  await fs.mkdir(installed, { recursive: true });
  for (const shipped of ["package.json", "dist/src", "policy-pack"]) {
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
  packDir = path.join(installed, "policy-pack");
});

afterAll(async () => {
  await fs.rm(project, { recursive: true, force: true });
});

/** A running pack and a client of it. */
interface Pack {
  child: ChildProcess;
  client: any;
  stderr: string[];
  call<T = any>(method: string, request: unknown): Promise<T>;
  stop(): void;
}

async function startPack(stack: string): Promise<Pack> {
  const runner = path.join(project, "node_modules/@pulumi/pulumi/cmd/run-policy-pack");
  const child = spawn(process.execPath, [runner, "127.0.0.1:0", packDir], {
    cwd: packDir,
    env: { ...process.env, PULUMI_NODEJS_STACK: stack, PULUMI_NODEJS_PROJECT: "email-delivery" },
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
    client,
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

function analyzeRequest(type: string, name: string, props: Record<string, unknown>, stack: string) {
  const request = new proto.AnalyzeRequest();
  request.setType(type);
  request.setName(name);
  request.setUrn(urnOf(type, name, undefined, stack));
  request.setProperties(Struct.fromJavaScript(props));
  request.setOptions(new proto.AnalyzerResourceOptions());
  return request;
}

const diagnostics = (response: any) =>
  response.getDiagnosticsList().map((d: any) => [d.getPolicyname(), d.getEnforcementlevel(), d.getMessage()]);

const LEVEL = proto.EnforcementLevel;

describe("the ready policy pack, as the engine runs it", () => {
  let pack: Pack | undefined;
  afterEach(() => pack?.stop());

  it("starts, describes its policies with their levels and config, and judges a resource", async () => {
    pack = await startPack("production");
    const stackConfig = new proto.AnalyzerStackConfigureRequest();
    stackConfig.setStack("production");
    stackConfig.setProject("email-delivery");
    await pack.call("configureStack", stackConfig);

    const info = await pack.call("getAnalyzerInfo", new Empty());
    expect(info.getName()).toBe("email-delivery-posture");
    expect(info.getVersion()).toBe(
      JSON.parse(await fs.readFile(path.join(REPO, "package.json"), "utf8")).version,
    );
    expect(info.getSupportsconfig()).toBe(true);
    const policies = info.getPoliciesList();
    expect(policies.map((p: any) => p.getName())).toEqual(POLICY_NAMES);
    const route = policies.find((p: any) => p.getName() === "email-route-mode");
    expect(route.getEnforcementlevel()).toBe(LEVEL.ADVISORY);
    expect(route.getConfigschema().getProperties().toJavaScript()).toMatchObject({
      productionStacks: { default: ["production", "prod"] },
      flaggedModes: { default: ["Hold", "Bounce", "Reject"] },
    });

    const held = analyzeRequest(
      TYPE_TOKENS.Route,
      "catch-all",
      { name: "*", mode: "Hold", endpointId: 1 },
      "production",
    );
    expect(diagnostics(await pack.call("analyze", held))).toEqual([
      [
        "email-route-mode",
        LEVEL.ADVISORY,
        expect.stringContaining('Route "catch-all" (*) sends its mail to Hold'),
      ],
    ]);
  }, 60_000);

  it("a policy config (as --policy-pack-config sets it): another level and other production stacks", async () => {
    pack = await startPack("prod-eu");
    const stackConfig = new proto.AnalyzerStackConfigureRequest();
    stackConfig.setStack("prod-eu");
    await pack.call("configureStack", stackConfig);
    const held = analyzeRequest(
      TYPE_TOKENS.Route,
      "catch-all",
      { name: "*", mode: "Hold", endpointId: 1 },
      "prod-eu",
    );
    // Without configuration "prod-eu" is not production.
    expect(diagnostics(await pack.call("analyze", held))).toEqual([]);

    // { "email-route-mode": { "enforcementLevel": "mandatory", "productionStacks": ["prod-*"] } }
    const configure = new proto.ConfigureAnalyzerRequest();
    const routeConfig = new proto.PolicyConfig();
    routeConfig.setEnforcementlevel(LEVEL.MANDATORY);
    routeConfig.setProperties(Struct.fromJavaScript({ productionStacks: ["prod-*"] }));
    configure.getPolicyconfigMap().set("email-route-mode", routeConfig);
    await pack.call("configure", configure);
    expect(diagnostics(await pack.call("analyze", held))).toEqual([
      ["email-route-mode", LEVEL.MANDATORY, expect.stringContaining('production stack "prod-eu"')],
    ]);

    // A stack policy over the stack's outputs, through the same process.
    const stackRequest = new proto.AnalyzeStackRequest();
    const domain = new proto.AnalyzerResource();
    domain.setType(TYPE_TOKENS.Domain);
    domain.setName("primary");
    domain.setUrn(urnOf(TYPE_TOKENS.Domain, "primary", undefined, "prod-eu"));
    domain.setProperties(
      Struct.fromJavaScript({
        name: "mail.example.com",
        mx: true,
        adopt: false,
        verification: {},
        cloudflare: { zoneId: "023e105f4ecef8ad9ca31a8372d0c353", ttl: 300, existingRecords: "fail" },
      }),
    );
    domain.setOptions(new proto.AnalyzerResourceOptions());
    stackRequest.setResourcesList([domain]);
    expect(diagnostics(await pack.call("analyzeStack", stackRequest))).toEqual([
      [
        "email-dmarc-published",
        LEVEL.ADVISORY,
        expect.stringContaining('Domain "primary" (mail.example.com) declares no DMARC policy in this stack'),
      ],
    ]);
  }, 60_000);
});
