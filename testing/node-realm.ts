import { AsyncLocalStorage } from "node:async_hooks";
import type { RunOptions } from "./run-types";
import { requireFromString } from "./pulumi-internals";

/**
 * Where dynamic providers run in the kit: Node's own module system and realm, as the provider host
 * runs them, whatever test runner loaded the kit (jest gives each test file a sandbox of its own).
 */

// The provider host evaluates `__provider` with require-from-string, i.e. in Node's own module
// system and realm, not jest's sandbox; load it the same way (from @pulumi/pulumi, as the host does).
export { hostRequire, requireFromString } from "./pulumi-internals";
// Inputs reach a provider as plain objects of the host's realm; parse them there so that
// `instanceof Array` inside a provider behaves as it does under the engine.
export const nodeRealm = requireFromString(
  "module.exports = { JSON, console, process, globalThis, setTimeout, clearTimeout, setImmediate };",
) as {
  JSON: JSON;
  /** Node's own timers: a test's fake clock (jest's replaces its sandbox's) must not hold a run back. */
  setTimeout: typeof setTimeout;
  clearTimeout: typeof clearTimeout;
  setImmediate: typeof setImmediate;
  console: Console;
  /** Where the kit leaves what providers read from the process (see kit-run-stop.ts). */
  globalThis: typeof globalThis;
  // jest gives tests a copy of `process`; rejection events are emitted on the real one.
  process: NodeJS.Process;
};

/**
 * Set while a provider is at work (loaded, configured, checking, creating): what it logs is
 * `providerLogs`. Under jest it logs to another console than the program's; under plain Node
 * (`node --test`) there is one console, so the context, not the console, tells them apart.
 */
export const providerAtWork = new AsyncLocalStorage<true>();

export interface DynamicProvider {
  read?(
    id: string,
    props: Record<string, unknown>,
  ): Promise<{ id?: string; props?: Record<string, unknown> }>;
  delete?(id: string, props: Record<string, unknown>): Promise<void>;
  configure?(req: {
    config: { get(key: string): string | undefined; require(key: string): string };
  }): Promise<void>;
  check?(
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<{ inputs?: Record<string, unknown>; failures?: { property: string; reason: string }[] }>;
  create(inputs: Record<string, unknown>): Promise<{ id: string; outs?: Record<string, unknown> }>;
}

/** Config keys marked secret for the program unless a run says otherwise. */
export const SECRET_CONFIG_KEYS = ["emailDelivery:apiKey", "emailDelivery:masterKey", "cloudflare:apiToken"];

/**
 * A run's stack config: the emulator's settings under the options' own. Every setting through
 * which the package reaches a server is filled in, in both modes, so that nothing a run does goes
 * elsewhere: the email API (a preview's `getDomain` too, which would otherwise follow
 * EMAIL_DELIVERY_BASE_URL), Cloudflare's API, the DNS server the SPF checks of a merge ask
 * (else the machine's resolver, which knows nothing of the emulator's zones), and the
 * nameservers a verification asks before the service (else the zone's real ones).
 */
export function runConfig(options: RunOptions): Record<string, string> {
  const emulator = options.emulator;
  const defaults: Record<string, string | undefined> = emulator
    ? {
        "cloudflare:baseUrl": emulator.cloudflare.url,
        "cloudflare:apiToken": emulator.cloudflare.apiToken,
        // In previews too: a program's `getDomain` reads the service there, as under the engine.
        "emailDelivery:baseUrl": emulator.emailApi.url,
        "emailDelivery:apiKey": emulator.emailApi.apiKey,
        "emailDelivery:dnsResolver": emulator.dns.address,
        // A verification asks the emulator's nameservers, never the zone's real ones.
        "emailDelivery:dnsNameservers": emulator.dns.nameservers.map((server) => server.address).join(","),
      }
    : {};
  const merged = { ...defaults, ...options.config };
  return Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/**
 * A provider as the host makes one from its text: deserialized, then configured from the stack
 * config. The host runs in the project's folder (`projectDir`), and a stored loader loads this
 * package from `process.cwd()`: it is given that folder while it loads, whatever the test
 * process's own current folder.
 */
export async function loadProvider(
  text: string,
  config: Record<string, string>,
  project = "email-delivery",
  projectDir = nodeRealm.process.cwd(),
): Promise<DynamicProvider> {
  const module = requireFromString(text) as { handler(): DynamicProvider };
  const realProcess = nodeRealm.process;
  const cwd = Object.getOwnPropertyDescriptor(realProcess, "cwd");
  let instance: DynamicProvider;
  realProcess.cwd = () => projectDir;
  try {
    instance = module.handler(); // synchronous: the loader requires the package at once
  } finally {
    if (cwd) Object.defineProperty(realProcess, "cwd", cwd);
    else delete (realProcess as Partial<NodeJS.Process>).cwd;
  }
  const get = (key: string) => config[key.includes(":") ? key : `${project}:${key}`];
  await instance.configure?.({
    config: {
      get,
      require: (key) => {
        const value = get(key);
        if (value === undefined) throw new Error(`Missing required configuration key: ${key}`);
        return value;
      },
    },
  });
  return instance;
}
