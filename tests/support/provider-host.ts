import { ChildProcess, spawn } from "node:child_process";
import * as http2 from "node:http2";
import * as path from "node:path";
import * as readline from "node:readline";
import type { Readable } from "node:stream";
import type { MethodDefinition } from "@grpc/grpc-js";
import * as pulumi from "@pulumi/pulumi";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

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
 * and marks the error `via: "tap"`.
 */

/** The repository root, the default project folder: here the loaders find this package's build by name. */
export const REPO_ROOT = path.resolve(__dirname, "../..");

/** The project name of ../../Pulumi.yaml; unqualified config keys are prefixed with it. */
export const PROJECT = "email-delivery";

/** What the engine sends for a value not known yet (preview); `pulumi/runtime/rpc` `unknownValue`. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** A secret as it travels over gRPC (`pulumi/runtime/rpc` `specialSigKey` → `specialSecretSig`). */
export function rpcSecret(value: unknown): Record<string, unknown> {
  return { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value };
}

/** Globals jest adds; a Pulumi program has none of them. */
const JEST_GLOBALS = [
  "describe",
  "fdescribe",
  "xdescribe",
  "it",
  "fit",
  "xit",
  "test",
  "xtest",
  "expect",
  "beforeAll",
  "afterAll",
  "beforeEach",
  "afterEach",
  "jest",
  "pending",
  "fail",
] as const;

/**
 * A provider's serialized text, produced exactly as `pulumi.dynamic.Resource` does for
 * `__provider` in a Pulumi program. The closure serializer treats every name found on `global`
 * as a built-in and does not capture it, so under jest a provider's own function called
 * `describe` or `test` would be left out of the text (and fail in the host with "describe is
 * not defined") although a real program serializes it. Jest's globals are therefore hidden
 * while serializing.
 */
export async function serializeProvider(provider: object): Promise<string> {
  const saved = new Map<string, PropertyDescriptor>();
  const holder = globalThis as Record<string, unknown>;
  for (const name of JEST_GLOBALS) {
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);
    if (descriptor?.configurable) {
      saved.set(name, descriptor);
      delete holder[name];
    }
  }
  try {
    return (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text;
  } finally {
    for (const [name, descriptor] of saved) Object.defineProperty(globalThis, name, descriptor);
  }
}

/** The URN the engine would give a dynamic resource `name` of `pulumi-nodejs:dynamic/<module>:<type>`. */
export function urnFor(type: string, name: string, stack = "test"): string {
  return `urn:pulumi:${stack}::${PROJECT}::pulumi-nodejs:dynamic/${type}::${name}`;
}

export type Props = Record<string, unknown>;

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

/** The decoded `pulumirpc.ErrorResourceInitFailed`: the object exists, so the engine keeps it. */
export interface ResourceInitFailure {
  id: string;
  properties: Props;
  reasons: string[];
}

/** A failed call: the gRPC status and, when the host attached it, ErrorResourceInitFailed. */
export interface HostCallError extends Error {
  name: "HostCallError";
  method: string;
  /** gRPC status code: 2 (UNKNOWN) for errors thrown by a provider; 4 after the call timeout; 14 when the connection failed. */
  code: number;
  /** The host's status text: the thrown error's `message`. */
  details: string;
  initFailed?: ResourceInitFailure;
  /**
   * `tap` when the answer had a header field too large for Node's HTTP/2 client (see
   * TAP_SCRIPT) and was read from what the host sent instead of from the wire.
   */
  via: "network" | "tap";
}

export function isHostCallError(error: unknown): error is HostCallError {
  return error instanceof Error && error.name === "HostCallError";
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

/** What the engine's gRPC client (grpc-go) accepts in one response's headers or trailers. */
const ENGINE_MAX_HEADER_LIST_SIZE = 16 << 20;
/** nghttp2 (Node's HTTP/2) refuses any single header field from 64 KiB on (NGHTTP2_HD_MAX_NV). */
const NODE_MAX_HEADER_FIELD = 65_536 - 100;
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
  /** Calls waiting for an answer, by the id sent in `x-harness-call`: told what the tap saw. */
  const onTap = new Map<string, (status: http2.IncomingHttpHeaders) => void>();
  readline.createInterface({ input: child.stdio[3] as Readable }).on("line", (line) => {
    const { call, headers } = JSON.parse(line) as { call: string; headers: http2.IncomingHttpHeaders };
    onTap.get(call)?.(headers);
  });

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
  const connect = () => {
    const session = http2.connect(`http://${address}`, {
      settings: { maxHeaderListSize: ENGINE_MAX_HEADER_LIST_SIZE },
      maxSessionMemory: 1024, // MB; grpc-js lifts this limit too
    });
    // A session error fails the calls in flight (below); it must not crash the test process.
    session.on("error", () => undefined);
    return session;
  };
  let session = connect();
  let calls = 0;
  const callTimeoutMs = options.callTimeoutMs ?? 60_000;

  /** One unary call: a length-prefixed message out, one back, status in the trailers. */
  function call<Req, Res>(
    method: string,
    definition: MethodDefinition<Req, Res>,
    request: Req,
  ): Promise<Res> {
    return new Promise((resolve, reject) => {
      const id = String(++calls);
      const payload = definition.requestSerialize(request);
      const frame = Buffer.alloc(5 + payload.length);
      frame.writeUInt32BE(payload.length, 1); // byte 0: not compressed
      payload.copy(frame, 5);
      const stream = session.request({
        ":method": "POST",
        ":path": definition.path,
        "content-type": "application/grpc",
        te: "trailers",
        "grpc-timeout": `${callTimeoutMs}m`,
        "x-harness-call": id,
      });
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        onTap.delete(id);
        outcome();
      };
      const timer = setTimeout(() => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        settle(() =>
          reject(hostCallError(method, { code: 4, details: `no answer within ${callTimeoutMs} ms` })),
        );
      }, callTimeoutMs);
      onTap.set(id, (sent) => {
        if (!Object.values(sent).some((value) => String(value).length >= NODE_MAX_HEADER_FIELD)) return;
        // Node's HTTP/2 client cannot take this answer (it would wait forever), the engine's can:
        // read it from the tap and start a new connection, this one is stuck.
        stream.close(http2.constants.NGHTTP2_CANCEL);
        session.destroy();
        session = connect();
        settle(() => reject(hostCallError(method, statusFrom(sent), "tap")));
      });
      const chunks: Buffer[] = [];
      let status: http2.IncomingHttpHeaders = {};
      // A failure comes "trailers-only": the status is in the response headers.
      stream.on("response", (headers) => {
        if (headers["grpc-status"] !== undefined) status = headers;
      });
      stream.on("trailers", (trailers) => (status = trailers));
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", (error) =>
        settle(() => reject(hostCallError(method, { code: 14, details: error.message }))),
      );
      stream.on("end", () =>
        settle(() => {
          if (Number(status["grpc-status"] ?? 2) !== 0) {
            reject(hostCallError(method, statusFrom(status)));
            return;
          }
          const body = Buffer.concat(chunks);
          if (body.length < 5) {
            reject(hostCallError(method, { code: 13, details: "an OK status without a response message" }));
            return;
          }
          resolve(definition.responseDeserialize(body.subarray(5, 5 + body.readUInt32BE(1))));
        }),
      );
      stream.end(frame);
    });
  }

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

    async stop() {
      session.destroy();
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      // The host has no SIGTERM handler, so Node's default (exit) applies; SIGKILL is the fallback.
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
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

/** The engine never sends `undefined` (it has no such value); Struct.fromJavaScript rejects it. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : withoutUndefined(item)));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => [key, withoutUndefined(item)]),
    );
  }
  return value;
}

function toStruct(props: Props): Struct {
  return Struct.fromJavaScript(withoutUndefined(props) as Record<string, never>);
}

function fromStruct(struct: Struct | undefined): Props {
  return struct ? (struct.toJavaScript() as Props) : {};
}

/** grpc-message is percent-encoded. */
function header(headers: http2.IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function statusFrom(headers: http2.IncomingHttpHeaders): GrpcStatus {
  return { code: Number(headers["grpc-status"] ?? 2), details: header(headers, "grpc-message"), headers };
}

interface GrpcStatus {
  code: number;
  details: string;
  headers?: http2.IncomingHttpHeaders;
}

/** A failed call as a HostCallError, decoding `grpc-status-details-bin` (a google.rpc.Status) when present. */
function hostCallError(
  method: string,
  failure: GrpcStatus,
  via: "network" | "tap" = "network",
): HostCallError {
  const result = new Error(`${method}: gRPC ${failure.code}: ${failure.details}`) as HostCallError;
  result.name = "HostCallError";
  result.method = method;
  result.code = failure.code;
  result.details = failure.details;
  result.via = via;
  const bin = failure.headers?.["grpc-status-details-bin"];
  const encoded = Array.isArray(bin) ? bin[0] : bin;
  if (typeof encoded === "string") {
    const status = Status.deserializeBinary(Buffer.from(encoded, "base64"));
    for (const detail of status.getDetailsList()) {
      const failed = detail.unpack(
        proto.ErrorResourceInitFailed.deserializeBinary,
        "pulumirpc.ErrorResourceInitFailed",
      );
      if (failed) {
        result.initFailed = {
          id: failed.getId(),
          properties: fromStruct(failed.getProperties()),
          reasons: failed.getReasonsList(),
        };
      }
    }
  }
  return result;
}

/**
 * The status tap, preloaded into the host with `--import`: for each failed call it writes what the
 * host sends (grpc-status, grpc-message, grpc-status-details-bin) to fd 3, tagged with the
 * harness's `x-harness-call` header. It only observes: the host answers exactly as without it.
 * (It patches the `node:http2` module object, which the host's grpc-js reaches through require.)
 */
const TAP_SCRIPT = `
import fs from "node:fs";
import http2 from "node:http2";
const createServer = http2.createServer;
http2.createServer = function (...args) {
  const server = createServer.apply(this, args);
  server.prependListener("stream", (stream, requestHeaders) => {
    const call = requestHeaders["x-harness-call"];
    if (call === undefined) return;
    for (const method of ["respond", "sendTrailers"]) {
      const original = stream[method];
      stream[method] = function (headers, ...rest) {
        try {
          if (headers && headers["grpc-status"] !== undefined && String(headers["grpc-status"]) !== "0") {
            const picked = {};
            for (const name of ["grpc-status", "grpc-message", "grpc-status-details-bin"]) {
              if (headers[name] !== undefined) picked[name] = headers[name];
            }
            fs.writeSync(3, JSON.stringify({ call, headers: picked }) + "\\n");
          }
        } catch {}
        return original.call(this, headers, ...rest);
      };
    }
  });
  return server;
};
`;
const TAP_URL = `data:text/javascript;base64,${Buffer.from(TAP_SCRIPT).toString("base64")}`;
