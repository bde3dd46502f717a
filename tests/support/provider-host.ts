import { ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import * as readline from "node:readline";
import type { Readable } from "node:stream";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { connectToHost, fromStruct, HostConnection, Props, TAP_URL, toStruct } from "./host-grpc";

/**
 * The engine path without the Pulumi CLI: the dynamic-provider host shipped in `@pulumi/pulumi`
 * (`cmd/dynamic-provider`) spawned in a project folder, as the engine starts it, and driven over
 * gRPC the way the engine drives it. Requests carry `__provider` as the engine stores it (for this
 * package's resources, the loader text, which loads the package installed in that folder), so
 * what runs is the provider as the host loads it in a separate process, configured from
 * Configure's arguments.
 *
 * The calls are made with the generated service definitions (`provider_grpc_pb`, `provider_pb`)
 * over `node:http2`, advertising the header-list limit of the engine's Go client (16 MiB,
 * grpc-go's default), rather than through a `@grpc/grpc-js` client, which cannot change Node's
 * 64 KiB default. One limit remains that no Node client can lift: nghttp2 refuses a single header
 * field of 64 KiB or more, which the host's ErrorResourceInitFailed trailer reaches when its
 * properties are that large (as with a provider serialized by value: ~100 KB). The Go engine
 * accepts such a trailer; a Node client would wait forever. For that case only, the harness reads
 * the status from a tap loaded into the host (TAP_SCRIPT, which only observes what the host sends)
 * and marks the error `via: "tap"`. That client is host-grpc.ts; this file starts the host and
 * speaks the provider protocol through it.
 */

/** The repository root, the default project folder: here the loaders find this package's build by name. */
export const REPO_ROOT = path.resolve(__dirname, "../..");

/** The project name of ../../Pulumi.yaml; unqualified config keys are prefixed with it. */
export const PROJECT = "email-delivery";

// The engine's unknown sentinel and secret form, for the tests that drive a host (see testing/engine-wire.ts).
export { rpcSecret, UNKNOWN } from "../../testing/engine-wire";
export { SERIALIZED_BEFORE_THE_LOADER, serializeProvider } from "./serialize-provider";
export { isHostCallError } from "./host-grpc";
export type { HostCallError, Props, ResourceInitFailure } from "./host-grpc";

/** The URN the engine would give a dynamic resource `name` of `pulumi-nodejs:dynamic/<module>:<type>`. */
export function urnFor(type: string, name: string, stack = "test"): string {
  return `urn:pulumi:${stack}::${PROJECT}::pulumi-nodejs:dynamic/${type}::${name}`;
}

export type DiffChanges = "DIFF_UNKNOWN" | "DIFF_NONE" | "DIFF_SOME";

export interface CheckResult {
  inputs: Props;
  failures: { property: string; reason: string }[];
}

export interface DiffResult {
  changes: DiffChanges;
  replaces: string[];
  /** Always `[]` from this host (it drops a provider's stables), kept to show that. */
  stables: string[];
  deleteBeforeReplace: boolean;
}

export interface ReadResult {
  /** `""` when the provider reported the resource gone: the engine then drops it from state. */
  id: string;
  properties: Props;
  inputs?: Props;
}

export interface ProviderHostOptions {
  /** Variables added to the host's environment (after the EMAIL_DELIVERY_* and PULUMI_* of this process are removed). */
  env?: Record<string, string>;
  /** Defaults to the repository root. */
  cwd?: string;
  project?: string;
  stack?: string;
  /** Per-call gRPC deadline. */
  callTimeoutMs?: number;
}

export interface ProviderHost {
  /** `127.0.0.1:<port>` as the host printed it. */
  address: string;
  pid: number;
  /** Lines the host wrote after its port line: stdout (pulumi.log without an engine) and stderr. */
  stdout: string[];
  stderr: string[];
  /** Everything the host wrote, one string, for "contains"/"does not contain" assertions. */
  output(): string;
  /**
   * The first output line matching, waiting for it: the host's pipes are read asynchronously,
   * so a line it wrote before answering may arrive just after the answer.
   */
  waitForOutput(match: string | RegExp, timeoutMs?: number): Promise<string>;
  configure(config: Props): Promise<{ acceptSecrets: boolean }>;
  check(urn: string, olds: Props, news: Props): Promise<CheckResult>;
  diff(id: string, urn: string, olds: Props, news: Props): Promise<DiffResult>;
  create(urn: string, properties: Props): Promise<{ id: string; properties: Props }>;
  read(id: string, urn: string, properties: Props, inputs?: Props): Promise<ReadResult>;
  update(id: string, urn: string, olds: Props, news: Props): Promise<{ properties: Props }>;
  delete(id: string, urn: string, properties: Props): Promise<void>;
  /** Closes the connection and kills the host; resolves when the process has exited. */
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 20_000;
const live = new Set<ChildProcess>();
// Safety net: a test that forgets stop() must not leave a host running after jest exits.
process.once("exit", () => live.forEach((child) => child.kill("SIGKILL")));

/** Starts a host, reads its port from the first stdout line, and connects a gRPC client. */
export async function startProviderHost(options: ProviderHostOptions = {}): Promise<ProviderHost> {
  const project = options.project ?? PROJECT;
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("EMAIL_DELIVERY_") && !key.startsWith("PULUMI_")) env[key] = value;
  }
  Object.assign(env, {
    PULUMI_NODEJS_PROJECT: project,
    PULUMI_PROJECT: project,
    PULUMI_NODEJS_STACK: options.stack ?? "test",
    PULUMI_STACK: options.stack ?? "test",
    ...options.env,
  });
  // The engine address argument is required but unused by this host. `--import` adds the
  // status tap (see TAP_SCRIPT); fd 3 is where it writes.
  // The host of the project's own @pulumi/pulumi, found from its folder as Pulumi's launcher does.
  const cwd = options.cwd ?? REPO_ROOT;
  const hostScript = require.resolve("@pulumi/pulumi/cmd/dynamic-provider", { paths: [cwd] });
  const child = spawn(process.execPath, ["--import", TAP_URL, hostScript, "127.0.0.1:1"], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  live.add(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  exited.then(() => live.delete(child));

  const stdout: string[] = [];
  const stderr: string[] = [];
  readline.createInterface({ input: child.stderr! }).on("line", (line) => stderr.push(line));
  const stdoutLines = readline.createInterface({ input: child.stdout! });
  let port: string;
  try {
    port = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the provider host printed no port in ${STARTUP_TIMEOUT_MS} ms`)),
        STARTUP_TIMEOUT_MS,
      );
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(
          new Error(`the provider host exited (${code}) before printing its port:\n${stderr.join("\n")}`),
        );
      });
      stdoutLines.once("line", (line) => {
        clearTimeout(timer);
        resolve(line.trim());
      });
    });
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw error;
  }
  stdoutLines.on("line", (line) => stdout.push(line));

  const address = `127.0.0.1:${port}`;
  const connection = connectToHost(address, {
    callTimeoutMs: options.callTimeoutMs ?? 60_000,
    tap: child.stdio[3] as Readable,
  });
  return {
    address,
    pid: child.pid!,
    stdout,
    stderr,
    output: () => [...stdout, ...stderr].join("\n"),

    async waitForOutput(match, timeoutMs = 2000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = [...stdout, ...stderr].find((candidate) =>
          typeof match === "string" ? candidate.includes(match) : match.test(candidate),
        );
        if (line !== undefined) return line;
        if (Date.now() > deadline)
          throw new Error(`no host output matching ${String(match)} in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },

    ...providerCalls(connection),

    async stop() {
      connection.close();
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      // The host has no SIGTERM handler, so Node's default (exit) applies; SIGKILL is the fallback.
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The provider protocol's calls, as the engine makes them, over a connection to a host. */
function providerCalls(
  connection: HostConnection,
): Pick<ProviderHost, "configure" | "check" | "diff" | "create" | "read" | "update" | "delete"> {
  const call = connection.call;
  return {
    async configure(config) {
      const request = new proto.ConfigureRequest();
      request.setArgs(toStruct(config));
      // What the engine announces; this host answers acceptSecrets=false, so later calls carry plain values.
      request.setAcceptsecrets(true);
      request.setAcceptresources(true);
      const response = await call("configure", ResourceProviderService.configure, request);
      return { acceptSecrets: response.getAcceptsecrets() };
    },

    async check(urn, olds, news) {
      const request = new proto.CheckRequest();
      identify(request, urn);
      request.setOlds(toStruct(olds));
      request.setNews(toStruct(news));
      const response = await call("check", ResourceProviderService.check, request);
      return {
        inputs: fromStruct(response.getInputs()),
        failures: response
          .getFailuresList()
          .map((failure) => ({ property: failure.getProperty(), reason: failure.getReason() })),
      };
    },

    async diff(id, urn, olds, news) {
      const request = new proto.DiffRequest();
      request.setId(id);
      identify(request, urn);
      request.setOlds(toStruct(olds));
      request.setNews(toStruct(news));
      const response = await call("diff", ResourceProviderService.diff, request);
      const changes = response.getChanges();
      const Changes = proto.DiffResponse.DiffChanges;
      return {
        changes:
          changes === Changes.DIFF_SOME
            ? "DIFF_SOME"
            : changes === Changes.DIFF_NONE
              ? "DIFF_NONE"
              : "DIFF_UNKNOWN",
        replaces: response.getReplacesList(),
        stables: response.getStablesList(),
        deleteBeforeReplace: response.getDeletebeforereplace(),
      };
    },

    async create(urn, properties) {
      const request = new proto.CreateRequest();
      identify(request, urn);
      request.setProperties(toStruct(properties));
      const response = await call("create", ResourceProviderService.create, request);
      return { id: response.getId(), properties: fromStruct(response.getProperties()) };
    },

    async read(id, urn, properties, inputs) {
      const request = new proto.ReadRequest();
      request.setId(id);
      identify(request, urn);
      request.setProperties(toStruct(properties));
      if (inputs) request.setInputs(toStruct(inputs));
      const response = await call("read", ResourceProviderService.read, request);
      const result: ReadResult = { id: response.getId(), properties: fromStruct(response.getProperties()) };
      if (response.hasInputs()) result.inputs = fromStruct(response.getInputs());
      return result;
    },

    async update(id, urn, olds, news) {
      const request = new proto.UpdateRequest();
      request.setId(id);
      identify(request, urn);
      request.setOlds(toStruct(olds));
      request.setNews(toStruct(news));
      const response = await call("update", ResourceProviderService.update, request);
      return { properties: fromStruct(response.getProperties()) };
    },

    async delete(id, urn, properties) {
      const request = new proto.DeleteRequest();
      request.setId(id);
      identify(request, urn);
      request.setProperties(toStruct(properties));
      await call("delete", ResourceProviderService.delete, request);
    },
  };
}

/** One host for a test file: started before its tests, stopped after them. */
export function useProviderHost(options: ProviderHostOptions = {}): () => ProviderHost {
  let host: ProviderHost | undefined;
  beforeAll(async () => {
    host = await startProviderHost(options);
  });
  afterAll(async () => {
    await host?.stop();
  });
  return () => {
    if (!host) throw new Error("the provider host has not started");
    return host;
  };
}

/** Sets what every resource request carries to name its resource, as the engine sets it. */
function identify(
  request: { setUrn(v: string): unknown; setName(v: string): unknown; setType(v: string): unknown },
  urn: string,
): void {
  request.setUrn(urn);
  request.setName(nameOf(urn));
  request.setType(typeOf(urn));
}

/** `urn:pulumi:stack::project::qualified$type::name` → name. */
function nameOf(urn: string): string {
  return urn.split("::").slice(3).join("::");
}

/** → the resource's own type (the last `$`-separated part of the qualified type). */
function typeOf(urn: string): string {
  return (urn.split("::")[2] ?? "").split("$").pop() ?? "";
}
