import type * as pulumi from "@pulumi/pulumi";
import type { ProgramRun, Registration, RunOptions } from "./run-types";

/**
 * The stack as an earlier live run left it, for the next run of the same program: a
 * `hooks.newResource` that answers each registration that run made (same type and name) with the
 * id and outputs it recorded, as the engine answers a resource that exists and whose inputs did
 * not change; anything else falls through to the run's own behaviour. So the next preview sees
 * known outputs (the service's records, a domain's id) where a preview of a new stack sees
 * unknowns, and only the program's own reads (the zone) reach the emulator.
 *
 * @example
 * const up = await runProgram(program, { mode: "live", emulator });
 * const next = await runProgram(program, { mode: "preview", emulator, hooks: { newResource: unchangedFrom(up) } });
 */
export function unchangedFrom(
  run: ProgramRun<string>,
): NonNullable<NonNullable<RunOptions["hooks"]>["newResource"]> {
  const made = new Map(
    run.registrations.filter((r) => r.id !== undefined).map((r) => [`${r.type}::${r.name}`, r] as const),
  );
  return (_args: pulumi.runtime.MockResourceArgs, registration: Registration) => {
    const earlier = made.get(`${registration.type}::${registration.name}`);
    return earlier ? { id: earlier.id!, state: earlier.state ?? {} } : undefined;
  };
}
