import { deleteDnsRecord } from "./cloudflare-mocks";
import { errorMessage } from "./mock-values";
import { commandParallel, startCommand } from "./parallel";
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
 * Deletes run `parallel` at a time, each once its dependents are gone, as the engine runs them.
 * A delete that fails keeps what that resource depends on (as `pulumi destroy --continue-on-error`
 * does), each named in `errors`; the rest is deleted, and another destroyRun tries again.
 */
export async function destroyRun(run: ProgramRun<string>, options: RunOptions): Promise<DestroyResult> {
  const emulator = options.emulator;
  if (!emulator) throw new Error("destroyRun: needs the emulator the run used");
  const lanes = commandParallel(options.parallel, "destroyRun");
  startCommand();
  const providers = commandProviders(run, options);
  const result: DestroyResult = { deleted: [], errors: [] };
  // Dependents first: the reverse of the order they were made in.
  const waiting = resourcesInState(run).reverse();
  const inState = new Set(waiting.map((registration) => registration.urn));
  // Each resource's dependents in state: it is deleted once they all are (or were kept).
  const dependents = new Map<string, string[]>();
  for (const registration of waiting) {
    for (const urn of dependenciesOf(registration).filter((dependency) => inState.has(dependency)))
      dependents.set(urn, [...(dependents.get(urn) ?? []), registration.urn!]);
  }
  // What a resource that was not deleted depends on stays, as `pulumi destroy --continue-on-error`
  // leaves it: deleting it would pull it from under its dependent.
  const keptBy = new Map<string, string>();
  const settled = new Set<string | undefined>();
  const asleep: (() => void)[] = [];
  const ready = (registration: Registration) =>
    (dependents.get(registration.urn ?? "") ?? []).every((urn) => settled.has(urn));

  // `lanes` deletes at once, as the engine's step executor runs them.
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (waiting.length > 0) {
        const index = waiting.findIndex(ready);
        if (index < 0) {
          await new Promise<void>((resolve) => asleep.push(resolve));
          continue;
        }
        const [registration] = waiting.splice(index, 1);
        await destroyOne(registration);
        settled.add(registration.urn);
        for (const resume of asleep.splice(0)) resume();
      }
    }),
  );
  return result;

  async function destroyOne(registration: Registration): Promise<void> {
    const subject = `${registration.type}::${registration.name}`;
    const dependent = registration.urn === undefined ? undefined : keptBy.get(registration.urn);
    if (dependent !== undefined) {
      keep(registration, subject);
      result.errors.push({
        source: "destroy",
        subject,
        message: `not deleted: ${dependent} depends on it and was not deleted`,
      });
      return;
    }
    try {
      if (registration.type.startsWith(DYNAMIC_TYPE_PREFIX) && registration.serializedProvider) {
        await (await providers.of(registration)).delete?.(registration.id!, providers.stateOf(registration));
      } else if (registration.type === DNS_RECORD_TYPE) {
        await deleteDnsRecord(options, registration);
      } else {
        return; // nothing outside the program to delete
      }
      result.deleted.push(subject);
    } catch (error) {
      keep(registration, subject);
      result.errors.push({ source: "destroy", subject, message: errorMessage(error) });
    }
  }

  function keep(registration: Registration, subject: string) {
    for (const urn of dependenciesOf(registration)) if (!keptBy.has(urn)) keptBy.set(urn, subject);
  }
}

function dependenciesOf(registration: Registration): string[] {
  return [...registration.dependencies, ...Object.values(registration.propertyDependencies).flat()];
}
