import { DynamicProvider, loadProvider, nodeRealm, runConfig } from "./node-realm";
import type { ProgramRun, Registration, RunOptions } from "./run-types";

/**
 * What the engine holds in state after a live run: every resource created, and every one whose
 * create made its object and then failed (an initialization failure, kept with the id and
 * properties it threw; never one the program only read), in the order they were made. What
 * `destroyRun` deletes (the other way round) and `refreshRun` reads.
 */
export function resourcesInState(run: ProgramRun<string>): Registration[] {
  return run.registrations
    .filter((r) => (r.status === "created" && r.id && r.custom && !r.read) || r.initFailure)
    .sort((a, b) => (a.doneSeq ?? 0) - (b.doneSeq ?? 0))
    .map((r) => (r.initFailure ? { ...r, id: r.initFailure.id, state: r.initFailure.properties } : r));
}

/**
 * The dynamic providers of one Pulumi command after the run (a `destroy`, a `refresh`): a fresh
 * provider host, each provider loaded from its stored text once and configured from the stack
 * config, as the engine configures it for that command.
 */
export function commandProviders(
  run: ProgramRun<string>,
  options: RunOptions,
): {
  /** The provider a resource's stored text loads. */
  of(registration: Registration): Promise<DynamicProvider>;
  /** The resource's state as its provider receives it (in the providers' realm, with `__provider`). */
  stateOf(registration: Registration): Record<string, unknown>;
} {
  const config = runConfig({ ...options, mode: "live" });
  const providers = new Map<string, Promise<DynamicProvider>>();
  return {
    of(registration) {
      const text = registration.serializedProvider!;
      let provider = providers.get(text);
      if (!provider) {
        provider = loadProvider(text, config, options.project, options.projectDir ?? run.projectDir);
        providers.set(text, provider);
      }
      return provider;
    },
    stateOf(registration) {
      return nodeRealm.JSON.parse(
        JSON.stringify({ ...registration.state, __provider: registration.serializedProvider }),
      ) as Record<string, unknown>;
    },
  };
}
