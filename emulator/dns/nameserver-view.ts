import type { ZoneData } from "./lookup";

/**
 * What one authoritative name server serves: the zones as they are now, or, while held, as they
 * were when `hold()` was called. A held server is a secondary that has not caught up yet (zone
 * transfer pending, propagation): it keeps answering the old value of a changed record, and
 * nothing made since, until `release()`. An explicit hold rather than a delay in time, so a test
 * steers propagation without a clock.
 */
export class NameserverView {
  private snapshot: ZoneData | undefined;

  constructor(private readonly live: () => ZoneData) {}

  /** True while the server serves the zones as they were at `hold()`. */
  get held(): boolean {
    return this.snapshot !== undefined;
  }

  /** Freezes what the server answers at the zones' present state; a second call keeps the first one's. */
  hold(): void {
    // A deep copy: records are changed in place by the API (PATCH), so a shallow one would follow them.
    this.snapshot ??= structuredClone(this.live());
  }

  /** Catches up: answers from the live zones again. */
  release(): void {
    this.snapshot = undefined;
  }

  /** The zones to answer from, at query time. */
  current(): ZoneData {
    return this.snapshot ?? this.live();
  }
}
