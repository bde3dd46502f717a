import type * as http from "node:http";
import type * as https from "node:https";
import type { AdaptiveRateLimiter } from "./client/adaptive-rate-limiter";
import type { ZoneRecord } from "./cloudflare/zone-record";
import type { ClientSettings } from "./client/settings";
import type { SingleFlight } from "./client/single-flight";

/**
 * What the package keeps for the whole process, in one object on the realm's global object.
 *
 * Process-wide, not module state, because one process may hold several copies of the package's
 * modules, and they must act as one: jest gives each test file (and each `isolateModules`) its
 * own module registry; the test kit runs the providers in Node's own realm beside jest's sandbox;
 * a program may find two installs of the package. A service counts the requests of every client
 * of a key, so the connection pools, the shared lists and the learned rate limits belong to the
 * process; so do the stack config `configure()` received, the routes a program run declares, and
 * the test kit's run under way. `Symbol.for` keys are shared by every realm of the process, but
 * each realm has a global object of its own: the copies in one realm share one state, and another
 * realm's (the kit's providers run in Node's, not jest's sandbox) is reached by passing its global
 * object, as `setKitRunStop` and `forgetSharedLists` do.
 *
 * The key carries a version: bump it when a slot's shape changes, so that an older copy of the
 * package in the same process keeps to an object of its own shape.
 */
const PROCESS_STATE = Symbol.for("pulumi-email-delivery.process-state.v1");

export interface ProcessState {
  /** What every API client shares (`client/process-runtime.ts`), made on first use. */
  runtime?: ProcessRuntime;
  /**
   * The stack config `configure()` received, by setting (`dynamic/configured.ts`). Keys live
   * here in memory only: never in inputs, outputs or errors.
   */
  config?: Partial<Record<string, string>>;
  /** Client settings every provider call starts from, e.g. shorter retries in tests (`setClientDefaults`). */
  clientDefaults?: Partial<ClientSettings>;
  /** The routes each program run declares, by the run's resource monitor (`resources/route-claims.ts`). */
  routeClaims?: WeakMap<object, Map<string, { readonly resource: string }>>;
  /** The test kit's run under way in this realm, if any (`verification/kit-run-stop.ts`). */
  kitRunStop?: AbortSignal;
  /**
   * The process's view of each Cloudflare zone, by account and zone (`cloudflare/zone-view.ts`):
   * one command's reads of a zone, shared. The test kit forgets it between commands, as the
   * engine starts a provider process per command.
   */
  zoneViews?: Map<string, ZoneViewRead>;
  /** Whether the test kit registered ts-node for TypeScript programs (`testing/program-file.ts`). */
  typeScriptRegistered?: boolean;
}

/** What every client in the process shares. */
export interface ProcessRuntime {
  /** Keep-alive connection pools. */
  httpAgent: http.Agent;
  httpsAgent: https.Agent;
  /** The shared lists, patched by writes (`single-flight.ts`). */
  lists: SingleFlight;
  /** How fast to send, per base URL and key (a service's rate limit counts every client of the key). */
  rateLimiters: Map<string, AdaptiveRateLimiter>;
  /** Writes under way, per service and key: whether a fresh list waits for more creates (`shared-lists.ts`). */
  writesUnderWay: Map<string, number>;
}

/** The process's state in `realm` (this realm's global object by default), made on first use. */
export function processState(realm: object = globalThis): ProcessState {
  const holder = realm as { [PROCESS_STATE]?: ProcessState };
  return (holder[PROCESS_STATE] ??= {});
}

/** One whole-zone read a process's view of a zone is made of (`cloudflare/zone-view.ts`). */
export interface ZoneViewRead {
  /** When the read was sent. */
  at: number;
  /** The zone's records by id, with the process's writes since applied. */
  records: Promise<Map<string, ZoneRecord>>;
}
