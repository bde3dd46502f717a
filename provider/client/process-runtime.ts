import * as http from "node:http";
import * as https from "node:https";
import { AdaptiveRateLimiter } from "./adaptive-rate-limiter";
import type { GatherWindow } from "./gathering";
import { SingleFlight } from "./single-flight";

/**
 * What every client in this process shares: keep-alive connection pools and the single-flight
 * registry. It lives on `globalThis`, so that every copy of this package's modules in one provider
 * host shares it: a program that wraps the providers in its own `pulumi.dynamic.Resource` gets each
 * serialized with its own copy of them.
 */
export interface ProcessRuntime {
  httpAgent: http.Agent;
  httpsAgent: https.Agent;
  lists: SingleFlight;
  /**
   * How fast to send, per base URL and key (a service's rate limit counts every client of the
   * key in the process). Optional: a runtime made by an older copy of this package has none.
   */
  rateLimiters?: Map<string, AdaptiveRateLimiter>;
  /** Writes under way, per service and key: whether a fresh list waits for more creates (shared-lists.ts). */
  writesUnderWay?: Map<string, number>;
}

/**
 * How long a fresh list (a create's proof that its name is free) waits for more creates before it
 * is sent, while other writes are under way (shared-lists.ts): until none arrived for `quietMs`,
 * at most `maxMs` after the first (gathering.ts). The quiet time outlasts the gaps between the
 * route creates of a stack's domains as their verifications pass one after another (a service
 * that makes a domain in ~30-60 ms, its DKIM key, spaces them so; 50 ms split them, 100 ms keeps
 * them together); the cap bounds what one create waits in a stream that does not stop, so such a
 * stream costs one list a second.
 */
export const FRESH_LIST_GATHER: GatherWindow = { quietMs: 100, maxMs: 1000 };

/** The process's lists: shared, patched by writes, fresh ones gathered. */
function newLists(): SingleFlight {
  return new SingleFlight({ gather: FRESH_LIST_GATHER });
}

/** Connections per API host at most: keeps a large refresh from opening hundreds of sockets. */
const MAX_SOCKETS_PER_HOST = 32;

/**
 * Where the runtime lives on `globalThis`. A versioned string key: a Symbol at module top level
 * would not survive serialization. Bump the version whenever the runtime's shape changes: an older
 * copy of the package in the same host (a program's own serialized provider) keeps using its own
 * slot. v2: paged lists and `SingleFlight.runStartedAfterCall`. v3: lists patched by writes
 * (`SingleFlight.patch`) and fresh lists gathered (`SingleFlight`'s gathering window).
 */
const RUNTIME_SLOT = "__pulumiEmailDeliveryRuntime_v3";

export function processRuntime(): ProcessRuntime {
  const holder = globalThis as unknown as Record<string, ProcessRuntime | undefined>;
  let runtime = holder[RUNTIME_SLOT];
  if (!runtime) {
    const agentOptions = { keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, scheduling: "lifo" as const };
    runtime = {
      httpAgent: new http.Agent(agentOptions),
      httpsAgent: new https.Agent(agentOptions),
      lists: newLists(),
    };
    holder[RUNTIME_SLOT] = runtime;
  }
  return runtime;
}

/** The rate limiter of one base URL and key (`scope`), made on first use. */
export function rateLimiterFor(scope: string): AdaptiveRateLimiter {
  const limiters = (processRuntime().rateLimiters ??= new Map());
  let limiter = limiters.get(scope);
  if (!limiter) {
    // Capped at the connection pool's size, so that before any 429 it holds back nothing the
    // pool would have sent, and after one only a pool's worth can be on its way.
    limiter = new AdaptiveRateLimiter({ maxInFlight: MAX_SOCKETS_PER_HOST });
    limiters.set(scope, limiter);
  }
  return limiter;
}

/** Forgets what was learned of every service's rate limit (tests and benchmarks that start afresh). */
export function forgetRateLimits(): void {
  processRuntime().rateLimiters = new Map();
}

/**
 * Forgets every shared list, in flight or reusable: benchmarks timing reads that must fetch, and
 * benchmarks that run several Pulumi commands in one process (each command has a provider host of
 * its own, which starts with no list). `realm`: the global object of the realm the providers run
 * in (the test kit runs them in Node's own, not jest's sandbox).
 */
export function forgetSharedLists(realm: object = globalThis): void {
  const runtime = (realm as Record<string, ProcessRuntime | undefined>)[RUNTIME_SLOT];
  if (runtime) runtime.lists = newLists();
}
