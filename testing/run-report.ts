import { DYNAMIC_TYPE_PREFIX, Invoke, ProgramRun, Registration, RunError } from "./run-types";

/** What every consequence of a stop says: such errors are not the run's causes, and are not reported. */
export const STOPPED = "stopped by the test kit";

/**
 * What a run records as it goes (registrations, invokes, errors, logs), and the `ProgramRun` it
 * gives from them.
 */
export class RunRecord {
  readonly registrations: Registration[] = [];
  readonly invokes: Invoke[] = [];
  readonly errors: RunError[] = [];
  readonly providerLogs: string[] = [];
  readonly programLogs: string[] = [];

  /**
   * Records an error once per cause. One failure reaches a test several ways: a failed registration
   * rejects the resource's outputs, and every resource given them fails to serialize
   * (`error serializing property "content": … failed to register new resource mail [type]: …`),
   * each rejection also unhandled. Only the cause is kept, and nothing the kit's stop caused.
   */
  report(error: RunError): void {
    const message = causeOf(error.message);
    if (message.includes(STOPPED)) return;
    const registered = /^failed to register new resource (\S+) \[([^\]]+)\]: ([\s\S]*)$/.exec(message);
    // Two resources failing alike are two causes: a message counts once per subject.
    const known = (candidate: RunError) =>
      (candidate.message === message &&
        (candidate.subject === error.subject || !candidate.subject || !error.subject)) ||
      (registered !== null &&
        candidate.source === "registration" &&
        candidate.subject === `${registered[2]}::${registered[1]}` &&
        candidate.message === registered[3]);
    if (this.errors.some(known)) return;
    this.errors.push({ ...error, message });
  }

  /** What the run gives: copies, which the run's late steps (if any) never change. */
  result<K extends string>(outputs: Partial<Record<K, unknown>>, projectDir: string): ProgramRun<K> {
    const registrations = [...this.registrations];
    const find = (type: string) => (r: Registration) =>
      r.type === type || (r.type.startsWith(`${DYNAMIC_TYPE_PREFIX}/`) && r.type.endsWith(`/${type}`));
    return {
      projectDir,
      outputs: { ...outputs },
      registrations,
      invokes: [...this.invokes],
      errors: [...this.errors],
      providerLogs: [...this.providerLogs],
      programLogs: [...this.programLogs],
      ofType: (type) => registrations.filter(find(type)),
      get: (type, name) => {
        const found = registrations.find((r) => find(type)(r) && r.name === name);
        if (!found) {
          const known = registrations.map((r) => `${r.type}::${r.name}`).join(", ");
          throw new Error(`no registration ${type}::${name}; registered: ${known}`);
        }
        return found;
      },
      dependsOn: (dependent, dependency) =>
        dependency.urn !== undefined &&
        (dependent.dependencies.includes(dependency.urn) ||
          Object.values(dependent.propertyDependencies).some((urns) => urns.includes(dependency.urn!))),
    };
  }
}

/**
 * The cause inside a serialization chain: a resource given a failed resource's output fails with
 * `error serializing property "x": ` before the cause, once per level of nesting.
 */
function causeOf(message: string): string {
  return message.replace(/^(?:error serializing property "[^"]*": )+/, "");
}
