import { isDeepStrictEqual } from "node:util";
import { refreshDnsRecord } from "./cloudflare-mocks";
import { errorMessage } from "./mock-values";
import { commandParallel, Lanes, startCommand } from "./parallel";
import { commandProviders, resourcesInState } from "./stack-state";
import {
  DNS_RECORD_TYPE,
  DYNAMIC_TYPE_PREFIX,
  ProgramRun,
  Registration,
  RunError,
  RunOptions,
} from "./run-types";

/** One property a refresh found changed: as the state had it, and as read. */
export interface RefreshedProperty {
  /** The output's name. */
  name: string;
  /** As the state had it (undefined: absent). */
  before: unknown;
  /** As the read found it (undefined: absent). */
  after: unknown;
}

/** How `refreshRun` reads: the run's options (`parallel`: reads at once, as `pulumi refresh --parallel`). */
export type RefreshOptions = RunOptions;

/** A resource whose outputs a refresh found changed. */
export interface RefreshedResource {
  /** `type::name`. */
  subject: string;
  /** Each output that changed. */
  properties: RefreshedProperty[];
}

/** What `refreshRun` found. */
export interface RefreshResult {
  /** Every resource read (`type::name`), in the order they were made. */
  read: string[];
  /** The resources whose outputs changed outside Pulumi (drift), each changed property named. */
  changed: RefreshedResource[];
  /** The resources found gone: the engine drops them from state. */
  deleted: string[];
  /** The reads that failed (the engine keeps those resources as they were). */
  errors: RunError[];
  /**
   * The run with the refreshed state (changed outputs taken, deleted resources dropped), for a
   * `destroyRun`, an `unchangedFrom` or another refresh after this one.
   */
  run: ProgramRun<string>;
}

/**
 * `pulumi refresh` (or the refresh of `pulumi up --refresh`) after a live run, minus the CLI:
 * every resource in state read as its provider reads it, `parallel` at a time as the engine sends
 * them, and what changed outside Pulumi returned. Dynamic resources by a fresh provider host's `read`
 * (a refresh is a command of its own), `cloudflare.DnsRecord`s by `GET` of their id on the
 * stand-in, as the Cloudflare provider reads them (a 404: gone). Nothing is written. What a
 * refresh costs is the emulator's request log meanwhile.
 *
 * @example
 * const up = await runProgram(program, live);
 * emulator.cloudflare.removeRecord(zoneId, recordId); // someone deletes a record by hand
 * const { deleted } = await refreshRun(up, live);
 * expect(deleted).toEqual([`${CLAIMED_RECORD_TYPE}::mail-spf`]);
 */
export async function refreshRun(run: ProgramRun<string>, options: RefreshOptions): Promise<RefreshResult> {
  if (!options.emulator) throw new Error("refreshRun: needs the emulator the run used");
  const providers = commandProviders(run, options);
  const inState = resourcesInState(run).filter(
    (r) => r.type === DNS_RECORD_TYPE || (r.type.startsWith(DYNAMIC_TYPE_PREFIX) && r.serializedProvider),
  );
  const readOne = async (registration: Registration): Promise<ReadState> => {
    if (registration.type === DNS_RECORD_TYPE) return refreshDnsRecord(options, registration);
    const provider = await providers.of(registration);
    const read = await provider.read?.(registration.id!, providers.stateOf(registration));
    // A provider without `read` keeps what the state has, as the engine does.
    if (!read) return { id: registration.id, state: registration.state };
    return { id: read.id, state: read.props && withoutProvider(read.props) };
  };
  const lanes = new Lanes(commandParallel(options.parallel, "refreshRun"));
  startCommand();
  const reads = await Promise.allSettled(
    inState.map((registration) => lanes.run(() => readOne(registration))),
  );
  const result: RefreshResult = { read: [], changed: [], deleted: [], errors: [], run };
  // By URN (two resources may share a type and a name under different parents), not by object: a
  // resource kept by an initialization failure is a copy in `inState`.
  const refreshed = new Map<string, Registration | undefined>();
  inState.forEach((registration, index) => {
    const subject = `${registration.type}::${registration.name}`;
    const key = keyOf(registration);
    const outcome = reads[index];
    if (outcome.status === "rejected") {
      result.errors.push({ source: "refresh", subject, message: errorMessage(outcome.reason) });
      return;
    }
    result.read.push(subject);
    const { id, state } = outcome.value;
    if (!id) {
      result.deleted.push(subject);
      refreshed.set(key, undefined);
      return;
    }
    const properties = changedProperties(withoutProvider(registration.state ?? {}), state ?? {});
    if (properties.length > 0) result.changed.push({ subject, properties });
    // What the engine keeps of a resource with an initialization failure is its state: refreshed too.
    const initFailure = registration.initFailure && {
      ...registration.initFailure,
      id,
      properties: { ...state },
    };
    refreshed.set(key, { ...registration, id, state: { ...state }, ...(initFailure && { initFailure }) });
  });
  result.run = {
    ...run,
    registrations: run.registrations.flatMap((registration) => {
      const key = keyOf(registration);
      if (!refreshed.has(key)) return [registration];
      const now = refreshed.get(key);
      return now ? [now] : [];
    }),
  };
  return result;
}

/** A registration's identity: its URN (type and name can repeat under other parents). */
function keyOf(registration: Registration): string {
  return registration.urn ?? `${registration.type}::${registration.name}::${registration.seq}`;
}

/** A resource as a read found it: no id when it is gone. */
interface ReadState {
  id?: string;
  state?: Record<string, unknown>;
}

function withoutProvider(state: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _provider, ...rest } = state;
  return rest;
}

/** The outputs whose values differ, by name (values compared as JSON reads them). */
function changedProperties(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): RefreshedProperty[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names
    .filter((name) => !isDeepStrictEqual(plain(before[name]), plain(after[name])))
    .map((name) => ({ name, before: before[name], after: after[name] }));
}

/** A value as JSON carries it: across realms, and without `undefined` members. */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
