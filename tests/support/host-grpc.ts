import * as http2 from "node:http2";
import * as readline from "node:readline";
import type { Readable } from "node:stream";
import type { MethodDefinition } from "@grpc/grpc-js";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

/**
 * The provider host harness's gRPC client: unary calls made with the generated service definitions
 * over `node:http2`, advertising the header-list limit of the engine's Go client, their failures
 * decoded as the engine decodes them (ErrorResourceInitFailed included), and the status tap that
 * reads the answers Node's HTTP/2 client cannot take (see provider-host.ts).
 */

export type Props = Record<string, unknown>;

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

/** What the engine's gRPC client (grpc-go) accepts in one response's headers or trailers. */
const ENGINE_MAX_HEADER_LIST_SIZE = 16 << 20;
/** nghttp2 (Node's HTTP/2) refuses any single header field from 64 KiB on (NGHTTP2_HD_MAX_NV). */
const NODE_MAX_HEADER_FIELD = 65_536 - 100;
/** A connection to a host: one unary call at a time per stream, any number at once. */
export interface HostConnection {
  call<Req, Res>(method: string, definition: MethodDefinition<Req, Res>, request: Req): Promise<Res>;
  close(): void;
}

/**
 * Connects to the host at `address`; `tap` is the host's fd 3, where TAP_SCRIPT writes the status
 * of each failed call.
 */
export function connectToHost(
  address: string,
  options: { callTimeoutMs: number; tap: Readable },
): HostConnection {
  const { callTimeoutMs } = options;
  /** Calls waiting for an answer, by the id sent in `x-harness-call`: told what the tap saw. */
  const onTap = new Map<string, (status: http2.IncomingHttpHeaders) => void>();
  readline.createInterface({ input: options.tap }).on("line", (line) => {
    const { call, headers } = JSON.parse(line) as { call: string; headers: http2.IncomingHttpHeaders };
    onTap.get(call)?.(headers);
  });

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

  return { call, close: () => session.destroy() };
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

export function toStruct(props: Props): Struct {
  return Struct.fromJavaScript(withoutUndefined(props) as Record<string, never>);
}

export function fromStruct(struct: Struct | undefined): Props {
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
export const TAP_URL = `data:text/javascript;base64,${Buffer.from(TAP_SCRIPT).toString("base64")}`;
