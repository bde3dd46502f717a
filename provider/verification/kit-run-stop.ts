import { processState } from "../process-state";

/**
 * The test kit's stop for one program run (`pulumi-email-delivery/testing`). A run that ends early
 * (its program failed, it timed out, or another run began) must leave nothing running behind it,
 * but a verification wait would poll on for its whole timeout (10 minutes by default). The kit
 * runs the providers in this process, so it holds one AbortSignal per run in the process state of
 * the realm the providers run in (`ProcessState.kitRunStop`), and a wait that starts during the
 * run stops at it.
 *
 * Pulumi's engine never sets it (its Cancel RPC does nothing for dynamic providers), so under the
 * engine a wait runs to its verdict or its timeout, as documented.
 */
export function kitRunStop(): AbortSignal | undefined {
  return processState().kitRunStop;
}

/**
 * Sets the stop of the kit's run under way in `realm` (the global object of the realm the
 * providers run in); returns what takes it away again, unless another run's stop replaced it.
 */
export function setKitRunStop(realm: object, signal: AbortSignal): () => void {
  const state = processState(realm);
  state.kitRunStop = signal;
  return () => {
    if (state.kitRunStop === signal) delete state.kitRunStop;
  };
}
