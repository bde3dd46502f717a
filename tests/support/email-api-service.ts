import * as dgram from "node:dgram";
import { AddressInfo } from "node:net";
import { MailDnsConfig, defaultMailDnsConfig } from "../../emulator/config";
import { emailApiService, seedServer } from "../../emulator/email-api";
import { FaultInjector } from "../../emulator/http/faults";
import { RequestLog } from "../../emulator/http/request-log";
import { RunningService, startHttpService } from "../../emulator/http/service";
import { Store } from "../../emulator/store/store";

/**
 * The email API emulator alone, over real HTTP on 127.0.0.1, for the tests asserting Postal's
 * exact envelopes, codes and texts (tests/emulator/email-api-*.test.ts, split by topic): a seeded "Main" server,
 * and how to call it. The DNS resolver it is given is unreachable: checks against the real DNS
 * server are in domain-check.test.ts.
 *
 * `store`, `log`, `faults`, `service` and `resolverAddress` are set by the hooks
 * `useEmailApiService()` registers (live bindings: read them inside tests).
 */

// Response bodies are arbitrary JSON; the assertions give them their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export const API_KEY = "ApiKey0123456789abcdefgh";
export const SMTP_KEY = "SmtpKey0123456789abcdefg";
export const MASTER_KEY = "master-key-for-tests";
export const dns: MailDnsConfig = { ...defaultMailDnsConfig(), dkimKeyBits: 1024 };

export let store: Store;
export let log: RequestLog;
export let faults: FaultInjector;
export let service: RunningService;
export let resolverAddress: string;

/** Starts the service before the file's tests and stops it after them. */
export function useEmailApiService(): void {
  beforeAll(async () => {
    store = new Store();
    seedServer(store, {
      name: "Main",
      apiKey: API_KEY,
      smtpKey: SMTP_KEY,
      endpoints: [
        { name: "Hook A", url: "http://127.0.0.1:9/a" },
        { name: "Hook B", url: "http://127.0.0.1:9/b" },
      ],
    });
    log = new RequestLog();
    faults = new FaultInjector();
    // Checks against the real DNS server are in domain-check.test.ts; here the resolver is unreachable.
    resolverAddress = await closedUdpPort();
    service = await startHttpService(
      emailApiService({ store, dns, masterKey: MASTER_KEY, resolver: () => resolverAddress }),
      { host: "127.0.0.1", port: 0, faults, log },
    );
  });

  afterAll(async () => {
    await service.close();
  });
}

export interface CallOptions {
  /** X-Server-API-Key; default the seeded key, null to leave it out. */
  key?: string | null;
  master?: string;
  method?: string;
  /** Default JSON; null to send none. */
  contentType?: string | null;
  /** Sent as is instead of JSON-encoding `params`. */
  raw?: string;
}

export interface Answer {
  http: number;
  contentType: string;
  text: string;
  body: Json;
}

export async function call(path: string, params?: unknown, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const contentType = options.contentType === undefined ? "application/json" : options.contentType;
  if (contentType !== null) headers["Content-Type"] = contentType;
  const key = options.key === undefined ? API_KEY : options.key;
  if (key !== null) headers["X-Server-API-Key"] = key;
  if (options.master !== undefined) headers["X-Master-Key"] = options.master;
  const method = options.method ?? "POST";
  const body =
    method === "GET" ? undefined : (options.raw ?? (params === undefined ? "" : JSON.stringify(params)));
  const response = await fetch(`${service.url}${path}`, { method, headers, body });
  const text = await response.text();
  const answerType = response.headers.get("content-type") ?? "";
  return {
    http: response.status,
    contentType: answerType,
    text,
    body: answerType.startsWith("application/json") ? JSON.parse(text) : undefined,
  };
}

export const api = async (action: string, params?: unknown, options?: CallOptions): Promise<Json> => {
  const answer = await call(`/api/v1/${action}`, params, options);
  expect(answer.http).toBe(200);
  return answer.body;
};

export const success = (data: unknown) => ({ status: "success", time: expect.any(Number), flags: {}, data });
export const failure = (data: unknown) => ({ status: "error", time: expect.any(Number), flags: {}, data });
export const parameterError = (message: string) => ({
  status: "parameter-error",
  time: expect.any(Number),
  flags: {},
  data: { message },
});

let domainCounter = 0;
/** A fresh domain on the seeded server (or the server of `key`). */
export async function newDomain(
  key = API_KEY,
  name = `d${++domainCounter}-${Date.now()}.example.org`,
): Promise<Json> {
  const answer = await api("domains/create", { name }, { key });
  expect(answer.status).toBe("success");
  return answer.data;
}

export function mainEndpoints() {
  const main = store.state.servers.find((server) => server.name === "Main")!;
  return store.state.endpoints.filter((endpoint) => endpoint.serverId === main.id);
}

export async function newServer(name: string): Promise<Json> {
  const answer = await api("server/create", { name, mode: "Live" }, { key: null, master: MASTER_KEY });
  expect(answer.status).toBe("success");
  return answer.data;
}

/** A UDP port nothing listens on: bound, then released. */
async function closedUdpPort(): Promise<string> {
  const socket = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = (socket.address() as AddressInfo).port;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return `127.0.0.1:${port}`;
}
