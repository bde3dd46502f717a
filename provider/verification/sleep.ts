/**
 * The wait's pauses between polls, ended early by the test kit's stop of a run (an AbortSignal):
 * a stopped wait keeps no timer pending.
 */

/**
 * The global `setTimeout` (which test clocks replace), its timer cleared when `signal` aborts, so a
 * stopped wait keeps nothing pending; it then rejects with the signal's reason.
 */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Aborted while the check was under way: an aborted signal never fires "abort" again, so a
    // timer set now would outlive the wait.
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let timer: NodeJS.Timeout | undefined = undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `pause`, ended early when `signal` aborts: then it rejects with the signal's reason. */
export async function stoppable(pause: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return pause;
  // Aborted before or during it, the real sleep rejects too: that is never the error reported.
  pause.catch(() => undefined);
  signal.throwIfAborted();
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => undefined); // raced below; never left unhandled
  try {
    await Promise.race([pause, aborted]);
  } catch (error) {
    // The real sleep rejects with its own AbortError: the reason is what the caller gave.
    throw signal.aborted ? signal.reason : error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
