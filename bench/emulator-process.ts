import * as http from "node:http";
import type { Emulator } from "../emulator";
import type { RateLimit } from "../emulator/http/rate-limit";
import type { RequestLogEntry } from "../emulator/http/request-log";
import { startEmulatorProcess as startChild } from "../tests/support/emulator-process";

/**
 * What the bench needs of an emulator, whether it runs in a process of its own (`npm run bench`:
 * its work then never sits on the timed side of a comparison) or in the caller's process (the
 * counting tests under tests/bench, where only request counts matter). Everything goes through
 * the emulator's HTTP surface or its request log, never its live state, so both work alike.
 */
export interface BenchEmulator {
  /** The env lines it printed (out of process only): how another process reaches it. */
  env?: Record<string, string>;
  emailApi: { url: string; apiKey: string; masterKey: string };
  cloudflare: { url: string; apiToken: string; zones: { id: string; name: string }[] };
  /** An HTTP endpoint of the seeded server, for routes to deliver to. */
  endpointId: number;
  requests: {
    all(): Promise<RequestLogEntry[]>;
    clear(): Promise<void>;
  };
  setRateLimit(limit: RateLimit | undefined): Promise<void>;
  stop(): Promise<void>;
}

/** An emulator started in this process (tests), seen through the same surface. */
export function inProcess(emulator: Emulator): BenchEmulator {
  return {
    env: Object.fromEntries(
      emulator
        .envLines()
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    ),
    emailApi: emulator.emailApi,
    cloudflare: emulator.cloudflare,
    endpointId: emulator.state.endpoints[0].id,
    requests: {
      all: async () => emulator.requests.all(),
      clear: async () => emulator.requests.clear(),
    },
    setRateLimit: async (limit) => emulator.rateLimit.set(limit),
    stop: () => emulator.stop(),
  };
}

/**
 * `npm run emulator`'s CLI (emulator/cli.ts through tsx) as a child process on free ports, as a
 * user starts it (tests/support/emulator-process.ts, shared with the emulator's own tests);
 * controlled through its `/__emulator/*` endpoints. The seeded server's first endpoint has id 1 in
 * a fresh emulator (no state file): ids count from 1 per kind.
 */
export async function startEmulatorProcess(args: string[] = []): Promise<BenchEmulator> {
  const start = await startChild(args);
  if (start.kind !== "running") throw new Error(`the emulator exited (${start.code}): ${start.stderr}`);
  return { ...connectEmulator(start.emulator.env), stop: () => start.emulator.stop() };
}

/**
 * An emulator some other process started, from the env lines it printed (`EMAIL_DELIVERY_BASE_URL`,
 * …): the bench's scenario processes reach the emulator the bench started this way. `stop` does
 * nothing: the process that started it stops it.
 */
export function connectEmulator(env: Record<string, string>): BenchEmulator {
  const admin = async (method: string, what: string, body?: unknown) =>
    JSON.parse(await send(`${env.EMAIL_DELIVERY_BASE_URL}/__emulator/${what}`, { method, body })) as unknown;
  const zones = Object.entries(env)
    .filter(([name]) => name.startsWith("CLOUDFLARE_ZONE_ID_"))
    .map(([name, id]) => ({
      id,
      name: name.slice("CLOUDFLARE_ZONE_ID_".length).toLowerCase().replace(/_/g, "."),
    }));
  return {
    env,
    emailApi: {
      url: env.EMAIL_DELIVERY_BASE_URL,
      apiKey: env.EMAIL_DELIVERY_API_KEY,
      masterKey: env.EMAIL_DELIVERY_MASTER_KEY,
    },
    cloudflare: { url: env.CLOUDFLARE_BASE_URL, apiToken: env.CLOUDFLARE_API_TOKEN, zones },
    endpointId: 1,
    requests: {
      all: async () => ((await admin("GET", "requests")) as { entries: RequestLogEntry[] }).entries,
      clear: async () => void (await admin("DELETE", "requests")),
    },
    setRateLimit: async (limit) =>
      void (limit ? await admin("PUT", "rate-limit", { limit }) : await admin("DELETE", "rate-limit")),
    stop: async () => undefined,
  };
}

/**
 * One request on a connection of its own; the answer's text (any status but 2xx throws). Not
 * `fetch`: its kept-alive sockets, idle while a step runs, can be closed by the server just as they
 * are reused ("other side closed"), and resending would make the counts wrong (a POST twice is
 * two records).
 */
export function send(
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: unknown },
): Promise<string> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers = {
    ...options.headers,
    ...(payload === undefined ? {} : { "Content-Type": "application/json" }),
  };
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: options.method, agent: false, headers }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("error", reject);
      response.on("end", () => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve(text);
        else reject(new Error(`${options.method} ${url}: HTTP ${status} ${text}`));
      });
    });
    request.on("error", reject);
    request.end(payload);
  });
}

/** Requests per endpoint (email API names as `domains/list`, the stand-in's as `cloudflare:…`). */
export function countsOf(entries: RequestLogEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of entries) counts[entry.endpoint] = (counts[entry.endpoint] ?? 0) + 1;
  return counts;
}
