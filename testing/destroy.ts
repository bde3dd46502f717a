import { deleteDnsRecord } from "./cloudflare-mocks";
import { errorMessage } from "./mock-values";
import { commandProviders, resourcesInState } from "./stack-state";
import {
  DNS_RECORD_TYPE,
  DYNAMIC_TYPE_PREFIX,
  ProgramRun,
  Registration,
  RunError,
  RunOptions,
} from "./run-types";

/** What `destroyRun` did: the resources deleted, in order, and what failed. */
export interface DestroyResult {
  /** The resources deleted (`type::name`), in the order they were. */
  deleted: string[];
  /** What failed; empty when every delete succeeded. */
  errors: RunError[];
}

/**
 * `pulumi destroy` after a live run, minus the CLI: every resource the run created (and every one
 * kept in state by an initialization failure; never one it only read), dependents
 * first (the reverse of the order they were made in), each deleted as its provider deletes it:
 * dynamic resources by a fresh provider host's `delete` (configured from the stack config, as
 * the engine configures it for a destroy), `cloudflare.DnsRecord`s by `DELETE` on the stand-in.
 * A delete that fails keeps what that resource depends on (as `pulumi destroy --continue-on-error`
 * does), each named in `errors`; the rest is deleted, and another destroyRun tries again.
 */
export async function destroyRun(run: ProgramRun<string>, options: RunOptions): Promise<DestroyResult> {
  const emulator = options.emulator;
  if (!emulator) throw new Error("destroyRun: needs the emulator the run used");
  const providers = commandProviders(run, options);
  const result: DestroyResult = { deleted: [], errors: [] };
  // Dependents first: the reverse of the order they were made in.
  const made = resourcesInState(run).reverse();
  // What a resource that was not deleted depends on stays, as `pulumi destroy --continue-on-error`
  // leaves it: deleting it would pull it from under its dependent.
  const keptBy = new Map<string, string>();
  for (const registration of made) {
    const subject = `${registration.type}::${registration.name}`;
    const dependent = registration.urn === undefined ? undefined : keptBy.get(registration.urn);
    if (dependent !== undefined) {
      keep(registration, subject);
      result.errors.push({
        source: "destroy",
        subject,
        message: `not deleted: ${dependent} depends on it and was not deleted`,
      });
      continue;
    }
    try {
      if (registration.type.startsWith(DYNAMIC_TYPE_PREFIX) && registration.serializedProvider) {
        await (await providers.of(registration)).delete?.(registration.id!, providers.stateOf(registration));
      } else if (registration.type === DNS_RECORD_TYPE) {
        await deleteDnsRecord(options, registration);
      } else {
        continue; // nothing outside the program to delete
      }
      result.deleted.push(subject);
    } catch (error) {
      keep(registration, subject);
      result.errors.push({ source: "destroy", subject, message: errorMessage(error) });
    }
  }
  return result;

  function keep(registration: Registration, subject: string) {
    const dependencies = [
      ...registration.dependencies,
      ...Object.values(registration.propertyDependencies).flat(),
    ];
    for (const urn of dependencies) if (!keptBy.has(urn)) keptBy.set(urn, subject);
  }
}
