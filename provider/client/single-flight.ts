/**
 * Concurrent calls with the same key share one in-flight promise; with `reuseMs`, a call may also
 * take the answer of one that settled at most that long ago. `invalidate(key)` makes the next call
 * start afresh (a write happened), even while an older call is still in flight, so no caller ever
 * receives an answer that started before a write it made. Failures are never reused.
 */
export class SingleFlight {
  private readonly flights: Map<
    string,
    { generation: number; promise: Promise<unknown>; settledAt?: number }
  >;
  private readonly generations: Map<string, number>;
  private readonly fresh: Map<string, { inFlight?: Promise<unknown>; queued?: Promise<unknown> }>;

  // Fields are set here, not with initializers: Pulumi's closure serializer drops class-field
  // initializers, and this class is serialized with a provider that someone serializes.
  constructor() {
    this.flights = new Map();
    this.generations = new Map();
    this.fresh = new Map();
  }

  run<T>(key: string, start: () => Promise<T>, reuseMs = 0): Promise<T> {
    const generation = this.generations.get(key) ?? 0;
    const current = this.flights.get(key);
    if (
      current &&
      current.generation === generation &&
      (current.settledAt === undefined || (reuseMs > 0 && Date.now() - current.settledAt <= reuseMs))
    ) {
      return current.promise as Promise<T>;
    }
    const promise = start();
    const flight: { generation: number; promise: Promise<unknown>; settledAt?: number } = {
      generation,
      promise,
    };
    this.flights.set(key, flight);
    promise.then(
      () => {
        flight.settledAt = Date.now();
      },
      () => {
        if (this.flights.get(key) === flight) this.flights.delete(key);
      },
    );
    return promise;
  }

  /**
   * The answer of a request started after this call began, shared with every caller that arrives
   * before it starts: with none in flight it starts now; otherwise it starts once the one in
   * flight (sent before this call, so not fresh enough) settles, and every caller arriving
   * meanwhile waits for it too. A burst of N callers costs two requests, not N. Kept apart from
   * `run`: a reused or invalidated answer never counts here.
   */
  runStartedAfterCall<T>(key: string, start: () => Promise<T>): Promise<T> {
    let slot = this.fresh.get(key);
    if (!slot) this.fresh.set(key, (slot = {}));
    if (slot.queued) return slot.queued as Promise<T>;
    const owner = slot;
    const launch = () => {
      const promise = start();
      owner.inFlight = promise;
      const done = () => {
        if (owner.inFlight === promise) owner.inFlight = undefined;
      };
      promise.then(done, done);
      return promise;
    };
    if (!owner.inFlight) return launch();
    const queued = owner.inFlight
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        owner.queued = undefined;
        return launch();
      });
    owner.queued = queued;
    return queued;
  }

  invalidate(key: string): void {
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    this.flights.delete(key);
  }
}
