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

  // Fields are set here, not with initializers: Pulumi's closure serializer drops class-field
  // initializers, and this class is serialized with a provider that someone serializes.
  constructor() {
    this.flights = new Map();
    this.generations = new Map();
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

  invalidate(key: string): void {
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    this.flights.delete(key);
  }
}
