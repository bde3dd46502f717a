import { FRESH_LIST_GATHER, processRuntime } from "../../provider/client/process-runtime";
import { SingleFlight } from "../../provider/client/single-flight";
import type { FakeClock } from "./fake-clock";

/** The process's lists on a test's clock, counting the callers of fresh lists (lookups, reads confirming a loss). */
export class CountedLists extends SingleFlight {
  callers = 0;
  override runStartedAfterCall<T>(key: string, start: () => Promise<T>, gather?: boolean): Promise<T> {
    this.callers++;
    return super.runStartedAfterCall(key, start, gather);
  }
}

/**
 * Puts counted lists on `clock` in place of the process's for each test of the file, and gives
 * them back after: the gathering window then moves only when the test moves the clock.
 */
export function useCountedLists(clock: () => FakeClock): () => CountedLists {
  let lists: CountedLists | undefined;
  let before: SingleFlight | undefined;
  beforeEach(() => {
    lists = new CountedLists({ gather: FRESH_LIST_GATHER, clock: clock() });
    before = processRuntime().lists;
    processRuntime().lists = lists;
  });
  afterEach(() => {
    processRuntime().lists = before!;
  });
  return () => lists!;
}
