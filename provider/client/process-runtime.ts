import * as http from "node:http";
import * as https from "node:https";
import { ProcessRuntime, processState } from "../process-state";
import { AdaptiveRateLimiter } from "./adaptive-rate-limiter";
import type { GatherWindow } from "./gathering";
import { SingleFlight } from "./single-flight";

/**
 * How long a fresh list (a read confirming an object gone; a create looking for what its lost
 * answer may have made) waits for more callers before it is sent, while other writes are under way
 * (shared-lists.ts): until none arrived for `quietMs`, at most `maxMs` after the first
 * (gathering.ts). The quiet time outlasts the gaps between the lost answers of creates sent one
 * after another (a service that makes a domain in ~30-60 ms, its DKIM key, spaces them so; 50 ms
 * split them, 100 ms keeps them together); the cap bounds what one caller waits in a stream that
 * does not stop, so such a stream costs one list a second.
 */
export const FRESH_LIST_GATHER: GatherWindow = { quietMs: 100, maxMs: 1000 };

/** The process's lists: shared, patched by writes, fresh ones gathered. */
function newLists(): SingleFlight {
  return new SingleFlight({ gather: FRESH_LIST_GATHER });
}

/** Connections per API host at most: keeps a large refresh from opening hundreds of sockets. */
const MAX_SOCKETS_PER_HOST = 32;

/**
 * What every client in this process shares, made on first use: process-wide, so that every copy
 * of the package's modules in the process shares it (see `ProcessState`).
 */
export function processRuntime(): ProcessRuntime {
  const state = processState();
  if (!state.runtime) {
    const agentOptions = { keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST, scheduling: "lifo" as const };
    state.runtime = {
      httpAgent: new http.Agent(agentOptions),
      httpsAgent: new https.Agent(agentOptions),
      lists: newLists(),
      rateLimiters: new Map(),
      writesUnderWay: new Map(),
    };
  }
  return state.runtime;
}

/** The rate limiter of one base URL and key (`scope`), made on first use. */
export function rateLimiterFor(scope: string): AdaptiveRateLimiter {
  const limiters = processRuntime().rateLimiters;
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
  const runtime = processState(realm).runtime;
  if (runtime) runtime.lists = newLists();
}
