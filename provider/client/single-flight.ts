import { GatherClock, Gathering, GatherWindow, gatherThen } from "./gathering";

/** Time, and timers for the gathering window: injected so that tests run them on a fake clock. */
export type FlightClock = GatherClock;

export interface SingleFlightOptions {
  /**
   * How long `runStartedAfterCall` gathers callers before it sends (see `GatherWindow`).
   * @default none: a caller with nothing in flight sends at once
   */
  gather?: GatherWindow;
  /** @default Date.now and setTimeout */
  clock?: FlightClock;
}

/** A change to apply to an answer (a write's outcome, see list-patches.ts). */
export type AnswerPatch = (answer: unknown) => unknown;

/** One request and its answer, with the patches recorded while it was in flight. */
interface Flight {
  /** Invalidations of its key before it started: one started before the latest is never handed out again. */
  generation: number;
  /** When it started, among all flights: the later of two answers is the newer. */
  order: number;
  /** Resolves to the answer with every patch recorded while the request was in flight applied. */
  promise: Promise<unknown>;
  /** Patches recorded while in flight; undefined once settled. */
  pending?: AnswerPatch[];
  /** The answer, patched since with every patch recorded after it came back. */
  settled?: { value: unknown; at: number };
}

/** The requests of `runStartedAfterCall` of one key: the one in flight, and the next one's callers. */
interface FreshSlot {
  inFlight?: Flight;
  next?: Gathering<unknown>;
}

/**
 * Concurrent calls with the same key share one in-flight promise; with `reuseMs`, a call may also
 * take the answer of one that settled at most that long ago. Failures are never reused.
 *
 * Writes whose outcome is known are applied to the answers (`patch`): to the settled one, and to
 * every one in flight when it settles, so that no caller ever receives an answer that predates a
 * write it made, and a write costs no new request. `invalidate(key)` is for writes whose outcome is
 * unknown: the next call starts afresh, even while an older call is still in flight.
 */
export class SingleFlight {
  private readonly shared: Map<string, Flight>;
  private readonly generations: Map<string, number>;
  private readonly fresh: Map<string, FreshSlot>;
  /** Every flight in flight, per key (shared and fresh): where patches go until it settles. */
  private readonly live: Map<string, Set<Flight>>;
  private readonly clock: FlightClock;
  private readonly gather: GatherWindow;
  private started: number;

  constructor(options: SingleFlightOptions = {}) {
    this.shared = new Map();
    this.generations = new Map();
    this.fresh = new Map();
    this.live = new Map();
    this.clock = options.clock ?? {
      now: () => Date.now(),
      setTimer: (callback, ms) => setTimeout(callback, ms),
    };
    this.gather = options.gather ?? { quietMs: 0, maxMs: 0 };
    this.started = 0;
  }

  run<T>(key: string, start: () => Promise<T>, reuseMs = 0): Promise<T> {
    const generation = this.generation(key);
    const current = this.shared.get(key);
    if (current && current.generation === generation) {
      if (!current.settled) return current.promise as Promise<T>;
      if (reuseMs > 0 && this.clock.now() - current.settled.at <= reuseMs) {
        return Promise.resolve(current.settled.value as T);
      }
    }
    // A fresh list in flight (a lookup after a lost answer, a read confirming a gone object) will
    // do too: the writes it misses are applied to it.
    let newest: Flight | undefined;
    for (const flight of this.live.get(key) ?? []) {
      if (flight.generation === generation && (!newest || flight.order > newest.order)) newest = flight;
    }
    if (newest) return newest.promise as Promise<T>;
    const flight = this.launch(key, start);
    this.shared.set(key, flight);
    return flight.promise as Promise<T>;
  }

  /**
   * The answer of a request started after this call began, shared with every caller that arrives
   * before it starts. The request waits for the one in flight (sent before this call, so not fresh
   * enough) to settle, and for the gathering window (callers that arrive meanwhile began before it
   * is sent, so it answers for them too). A burst of N callers costs one or two requests, not N.
   * `gather: false` (nothing else under way that could bring more callers) skips the window when
   * none is in flight: the request starts at once. Its answer, once settled, is also the one `run`
   * reuses: none is newer.
   */
  runStartedAfterCall<T>(key: string, start: () => Promise<T>, gather = true): Promise<T> {
    let slot = this.fresh.get(key);
    if (!slot) this.fresh.set(key, (slot = {}));
    if (slot.next) return slot.next.join() as Promise<T>;
    const owner = slot;
    const send = () => {
      const flight = this.launch(key, start);
      owner.inFlight = flight;
      const done = () => {
        if (owner.inFlight === flight) owner.inFlight = undefined;
      };
      flight.promise.then(done, done);
      return flight.promise;
    };
    const window = gather || owner.inFlight ? this.gather : { quietMs: 0, maxMs: 0 };
    const next = gatherThen(this.clock, window, owner.inFlight?.promise, () => {
      owner.next = undefined; // callers from now on began after this request: they wait for the next
      return send();
    });
    if (!next.sent) owner.next = next;
    return next.join() as Promise<T>;
  }

  /** Applies a write's outcome to the settled answer of `key` and to every one in flight. */
  patch(key: string, patch: AnswerPatch): void {
    for (const flight of this.live.get(key) ?? []) flight.pending!.push(patch);
    const current = this.shared.get(key);
    if (current?.settled && current.generation === this.generation(key)) {
      current.settled = { value: patch(current.settled.value), at: current.settled.at };
    }
  }

  /** A write whose outcome is unknown: nothing that started before it is handed out again. */
  invalidate(key: string): void {
    this.generations.set(key, this.generation(key) + 1);
    this.shared.delete(key);
  }

  private generation(key: string): number {
    return this.generations.get(key) ?? 0;
  }

  private launch(key: string, start: () => Promise<unknown>): Flight {
    let live = this.live.get(key);
    if (!live) this.live.set(key, (live = new Set()));
    const inFlight = live;
    const flight: Flight = {
      generation: this.generation(key),
      order: ++this.started,
      pending: [],
      promise: start(),
    };
    inFlight.add(flight);
    flight.promise = flight.promise.then(
      (answer) => {
        inFlight.delete(flight);
        const value = flight.pending!.reduce((patched, patch) => patch(patched), answer);
        flight.pending = undefined;
        flight.settled = { value, at: this.clock.now() };
        this.adopt(key, flight);
        return value;
      },
      (error: unknown) => {
        inFlight.delete(flight);
        flight.pending = undefined;
        if (this.shared.get(key) === flight) this.shared.delete(key);
        throw error;
      },
    );
    return flight;
  }

  /** A settled answer becomes the one to reuse, unless one newer (started later) already is. */
  private adopt(key: string, flight: Flight): void {
    if (flight.generation !== this.generation(key)) return;
    const current = this.shared.get(key);
    if (current && current !== flight && current.order > flight.order) return;
    this.shared.set(key, flight);
  }
}
