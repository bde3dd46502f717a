/**
 * Concurrent calls with the same key share one in-flight promise. `invalidate(key)` makes the
 * next call start afresh (a write happened), even while an older call is still in flight, so no
 * caller ever receives an answer that started before a write it made.
 */
export class SingleFlight {
  private readonly flights: Map<string, { generation: number; promise: Promise<unknown> }>;
  private readonly generations: Map<string, number>;

  // Fields are set here, not with initializers: Pulumi's closure serializer drops class-field
  // initializers, and this class is serialized into every dynamic provider.
  constructor() {
    this.flights = new Map();
    this.generations = new Map();
  }

  run<T>(key: string, start: () => Promise<T>): Promise<T> {
    const generation = this.generations.get(key) ?? 0;
    const current = this.flights.get(key);
    if (current && current.generation === generation) return current.promise as Promise<T>;
    const promise = start().finally(() => {
      if (this.flights.get(key)?.promise === promise) this.flights.delete(key);
    });
    this.flights.set(key, { generation, promise });
    return promise;
  }

  invalidate(key: string): void {
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    this.flights.delete(key);
  }
}
