/**
 * The test kit's stop for one program run (`pulumi-email-delivery/testing`). A run that ends early
 * (its program failed, it timed out, or another run began) must leave nothing running behind it,
 * but a verification wait would poll on for its whole timeout (10 minutes by default). The kit
 * runs the providers in this process, so it holds one AbortSignal per run on the process's global
 * object under this key, and a wait that starts during the run stops at it.
 *
 * Pulumi's engine never sets it (its Cancel RPC does nothing for dynamic providers), so under the
 * engine a wait runs to its verdict or its timeout, as documented.
 */
export const KIT_RUN_STOP = Symbol.for("pulumi-email-delivery.kit-run-stop");

/** The signal of the kit's run under way in this process, if any. */
export function kitRunStop(): AbortSignal | undefined {
  const value = (globalThis as Record<symbol, unknown>)[KIT_RUN_STOP];
  // Duck-typed: the kit may make it in another realm (jest's sandbox), where instanceof fails.
  return typeof value === "object" && value !== null && "aborted" in value
    ? (value as AbortSignal)
    : undefined;
}
