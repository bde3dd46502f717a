import * as http from "node:http";
import { AddressInfo } from "node:net";
import { addressWithPort } from "../config";
import { FaultInjector, parseFaultsBody } from "./faults";
import type { CloudflareAccountLimit } from "./account-limit";
import { admitAll, answerLimitAdmin, ServiceRateLimit } from "./rate-limit";
import { RequestEffect, RequestLog } from "./request-log";

export interface ServiceRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface ServiceResponse {
  status: number;
  headers?: Record<string, string>;
  body: string;
  /** Recorded in the request log; never sent. */
  effect?: RequestEffect;
}

/** One emulated HTTP API: how it names endpoints and how it answers. */
export interface ServiceDefinition {
  /** Shown in the request log, e.g. `email-api`. */
  name: string;
  /** The endpoint name used by the request log and fault rules, e.g. `domains/create`. */
  endpointOf(method: string, pathname: string): string;
  handle(request: ServiceRequest, endpoint: string): Promise<ServiceResponse>;
  /** The answer to an injected 429 or 503, in the service's own error form. */
  faultResponse(status: 429 | 503): ServiceResponse;
  /** The answer to a body over `maxBodyBytes`. */
  tooLargeResponse(): ServiceResponse;
  /** The answer when a handler throws: the real servers answer 500. */
  internalErrorResponse(): ServiceResponse;
}

export interface ServiceOptions {
  host: string;
  port: number;
  faults: FaultInjector;
  log: RequestLog;
  /** A request rate limit; it applies to the service it names, and is set through either port. @default none */
  rateLimit?: ServiceRateLimit;
  /** Cloudflare's account-wide limit; it applies to the Cloudflare stand-in. @default none */
  accountLimit?: CloudflareAccountLimit;
  /** @default 16 MiB */
  maxBodyBytes?: number;
  /**
   * Resolves once every change made so far is durable (the state file is written). Awaited after
   * each handled request, before its answer (or its committed drop) goes out, so an acknowledged
   * change survives the process being killed; when it rejects, the answer is a 500.
   * @default nothing to wait for
   */
  persisted?: () => Promise<void>;
}

export interface RunningService {
  url: string;
  port: number;
  close(): Promise<void>;
}

const ADMIN_PREFIX = "/__emulator/";

/**
 * Serves a definition on a real port, wrapping every request in fault injection and the request
 * log. `/__emulator/requests` (GET, DELETE), `/__emulator/faults` (GET, PUT),
 * `/__emulator/rate-limit` and `/__emulator/cloudflare-limit` (GET, PUT, DELETE) are the control
 * surface for tests and curl; they are never logged, faulted or rate-limited.
 */
export async function startHttpService(
  definition: ServiceDefinition,
  options: ServiceOptions,
): Promise<RunningService> {
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const server = http.createServer((req, res) => {
    handleRequest(definition, options, maxBodyBytes, req, res).catch((error) => {
      process.stderr.write(`[emulator:${definition.name}] ${(error as Error).stack ?? error}\n`);
      if (!res.headersSent) send(res, definition.internalErrorResponse());
      else res.destroy();
    });
  });
  // Idle connections are kept 75 s (nginx's default; Node's is 5 s). A client reuses an idle
  // connection the moment it is told to send; one the server closed meanwhile loses the request
  // unread (ECONNRESET), and a create then looks before it sends again. Node's client drops an
  // idle socket 1 s before the server's announced timeout, so at 5 s a test process busy for a
  // second at that mark (an in-process emulator on a loaded machine) lost requests no fault rule
  // asked for. Real servers vary and may not announce theirs: the client's answer to such a loss,
  // the look before sending again, is what the fault tests exercise.
  server.keepAliveTimeout = 75_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${addressWithPort(address, port)}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handleRequest(
  definition: ServiceDefinition,
  options: ServiceOptions,
  maxBodyBytes: number,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const method = req.method ?? "GET";
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  const body = await readBody(req, maxBodyBytes);

  if (url.pathname.startsWith(ADMIN_PREFIX)) {
    send(res, answerAdmin(options, method, url.pathname.slice(ADMIN_PREFIX.length), body));
    return;
  }

  const endpoint = definition.endpointOf(method, url.pathname);
  // Over a limit, a request is refused before anything else: no fault draw, no work.
  const admission = admitAll([options.rateLimit, options.accountLimit], definition.name);
  const limitHeaders = (answer: ServiceResponse): ServiceResponse =>
    admission.headers ? { ...answer, headers: { ...answer.headers, ...admission.headers } } : answer;
  if (!admission.allowed) {
    const entry = { service: definition.name, endpoint, method, path: url.pathname, latencyMs: 0 };
    options.log.add({ ...entry, status: 429, fault: "rate-limit" });
    send(res, limitHeaders(withRetryAfter(definition.faultResponse(429), admission.retryAfterSeconds)));
    return;
  }
  const decision = options.faults.decide(endpoint);
  const record = (status: number | null, effect?: RequestEffect) =>
    options.log.add({
      service: definition.name,
      endpoint,
      method,
      path: url.pathname,
      status,
      fault: decision.outcome === "pass" ? null : decision.outcome,
      latencyMs: decision.latencyMs,
      effect,
    });

  if (body === undefined) {
    record(413);
    send(res, limitHeaders(definition.tooLargeResponse()), true);
    return;
  }
  if (decision.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.latencyMs));
  if (decision.hold) await decision.hold;

  switch (decision.outcome) {
    case "drop":
      record(null);
      req.socket.destroy();
      return;
    case "429":
      record(429);
      send(res, limitHeaders(withRetryAfter(definition.faultResponse(429), decision.retryAfterSeconds)));
      return;
    case "503":
      record(503);
      send(res, limitHeaders(definition.faultResponse(503)));
      return;
  }

  const handled = await definition.handle({ method, url, headers: req.headers, body }, endpoint);
  const answer = await onceDurable(definition, options, handled);
  if (decision.outcome === "commit-then-drop") {
    record(null, answer.effect);
    req.socket.destroy();
    return;
  }
  record(answer.status, answer.effect);
  send(res, limitHeaders(answer));
}

/** The handler's answer once its change is durable; the service's 500 if it cannot be made so. */
async function onceDurable(
  definition: ServiceDefinition,
  options: ServiceOptions,
  answer: ServiceResponse,
): Promise<ServiceResponse> {
  try {
    await options.persisted?.();
    return answer;
  } catch (error) {
    process.stderr.write(`[emulator:${definition.name}] ${(error as Error).message}\n`);
    return { ...definition.internalErrorResponse(), effect: answer.effect };
  }
}

/** The body, or undefined when it is over the limit (the rest is discarded). */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on("end", () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function withRetryAfter(answer: ServiceResponse, seconds: number): ServiceResponse {
  return { ...answer, headers: { ...answer.headers, "Retry-After": String(seconds) } };
}

function send(res: http.ServerResponse, answer: ServiceResponse, close = false): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  if (close) res.setHeader("Connection", "close");
  res.end(answer.body);
}

function answerAdmin(
  options: ServiceOptions,
  method: string,
  path: string,
  body: Buffer | undefined,
): ServiceResponse {
  const json = (status: number, value: unknown): ServiceResponse => ({
    status,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(value),
  });
  try {
    if (path === "requests" && method === "GET") {
      return json(200, { counts: options.log.counts(), entries: options.log.all() });
    }
    if (path === "requests" && method === "DELETE") {
      options.log.clear();
      return json(200, { cleared: true });
    }
    if (path === "faults" && method === "GET") return json(200, { rules: options.faults.list() });
    if (path === "faults" && (method === "PUT" || method === "POST")) {
      // A cut-off body must not pass for an empty one: that would turn every fault off.
      if (body === undefined) return json(413, { error: "the body is over the size limit; no rule changed" });
      const { rules, seed } = parseFaultsBody(body.toString("utf8"));
      options.faults.set(rules, seed); // checks every rule before it replaces any
      return json(200, { rules: options.faults.list() });
    }
    const limit =
      path === "rate-limit"
        ? options.rateLimit
        : path === "cloudflare-limit"
          ? options.accountLimit
          : undefined;
    if (limit) {
      const answer = answerLimitAdmin<unknown>(limit, path, method, body?.toString("utf8"));
      return json(answer.status, answer.value);
    }
    return json(404, { error: `no admin endpoint ${method} /__emulator/${path}` });
  } catch (error) {
    return json(400, { error: (error as Error).message });
  }
}
