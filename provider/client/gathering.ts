/**
 * The gathering window of a fresh list (`SingleFlight.runStartedAfterCall`): a list that must be
 * sent after its caller began, as a read confirming an object gone, or a create looking for what
 * its lost answer may have made. Every caller that arrives before that list is sent began before
 * it, so one list answers them all. Callers do not arrive at one instant (a network blip loses
 * the answers of creates that were sent over a second or two), so waiting a little before sending
 * lets one list answer for callers that arrive close together instead of one list each.
 */

/** How long to wait, as a debounce: until no caller arrived for `quietMs`, at most `maxMs` in all. */
export interface GatherWindow {
  /** Send once no new caller has arrived for this long. */
  quietMs: number;
  /** …but no later than this long after the first caller arrived. */
  maxMs: number;
}

/** The time source the window runs on. */
export interface GatherClock {
  now(): number;
  setTimer(callback: () => void, ms: number): unknown;
}

/** Callers waiting for one request that is not sent yet. */
export interface Gathering<T> {
  /** True once the request is sent: from then on a caller must not join (it began after). */
  sent: boolean;
  /** Joins as one more caller (the quiet time starts again) and gives the request's answer. */
  join(): Promise<T>;
}

/**
 * Sends once the window has passed and `previous` (a request in flight, sent before these callers
 * arrived, so no proof for them) has settled, whichever is later: the wait for `previous` gathers
 * too. With a window of zero and nothing in flight, it sends at once, before returning.
 */
export function gatherThen<T>(
  clock: GatherClock,
  window: GatherWindow,
  previous: Promise<unknown> | undefined,
  send: () => Promise<T>,
): Gathering<T> {
  const first = clock.now();
  let last = first;
  let settle!: (answer: Promise<T>) => void;
  const answer = new Promise<T>((resolve) => (settle = resolve));
  const gathering: Gathering<T> = {
    sent: false,
    join: () => {
      last = clock.now();
      return answer;
    },
  };
  const go = () => {
    gathering.sent = true;
    try {
      settle(send());
    } catch (error) {
      settle(Promise.reject(error));
    }
  };
  const wait = () => {
    const due = Math.min(last + window.quietMs, first + window.maxMs);
    const now = clock.now();
    if (now < due) clock.setTimer(wait, due - now);
    else if (previous) previous.then(go, go);
    else go();
  };
  wait();
  return gathering;
}
