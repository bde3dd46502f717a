import * as pulumi from "@pulumi/pulumi";
import { POLICY_KEYS } from "../../dns/existing-records";
import { isRecordPurpose, type PlannedRecord } from "../../dns/zone-records";

/**
 * Conflicts between the records a `Domain` publishes and what its zone holds, reported together:
 * every conflict of one Domain in one error, a line each, and the errors of every Domain of a
 * program run at one moment. Reported one at a time, each conflict cost the user a preview (a
 * program stops at its first error under the test kit, and a Domain's checks stopped at their
 * first conflict).
 */

/** A record the zone holds where a Domain would publish one, which its policy does not allow for. */
export interface ZoneConflict {
  /** The record the Domain would publish. */
  planned: PlannedRecord;
  /** The policy for its purpose, as given or by default. */
  policy: string;
  /** What the zone holds there, and what to do (existing-records.ts' words). */
  problem: string;
}

/**
 * The message of `component`'s conflicts: how many, then a line each, starting with the property
 * of `cloudflare.existingRecords` that decides it and its value.
 */
export function conflictsMessage(component: string, conflicts: readonly ZoneConflict[]): string {
  const count = conflicts.length === 1 ? "1 record conflicts" : `${conflicts.length} records conflict`;
  const lines = conflicts.map(({ planned, policy, problem }) => {
    // A purpose the rules do not know has no policy of its own: only its problem is said.
    const property = isRecordPurpose(planned.purpose)
      ? `cloudflare.existingRecords.${POLICY_KEYS[planned.purpose]} (${JSON.stringify(policy)}): `
      : "";
    return `  - ${property}${problem}`;
  });
  return [`Domain ${component}: ${count} with what the zone already holds:`, ...lines].join("\n");
}

/**
 * The error for `component`'s conflicts. Its stack is hidden: the language host prints a
 * `ResourceError`'s message alone then, where it would print the package's stack after it.
 */
export function conflictsError(
  component: string,
  conflicts: readonly ZoneConflict[],
  parent: pulumi.Resource,
): pulumi.ResourceError {
  return new pulumi.ResourceError(conflictsMessage(component, conflicts), parent, true);
}

/**
 * Runs `check` (zone checks of Domain `component`, the `parent`, giving conflicts) as one of the
 * program run's, and throws what it found once every check of the run under way has finished too:
 * the Domain's conflicts found by every check of it that ended meanwhile, in one error (the same
 * object for each of them, which the language host reports once), or the check's own failure. A
 * program's Domains then fail together, each with one error, where the first to fail could end
 * the run before the others reported (the test kit ends a program at its first unhandled error).
 * Checks only read (the zone, SPF through DNS) and never wait for a resource, so waiting for one
 * another cannot deadlock. A Domain whose check starts later (its zone or name comes from a
 * resource still to be made) reports when its check ends.
 */
export async function reportTogether(
  component: string,
  parent: pulumi.Resource,
  check: () => Promise<readonly ZoneConflict[]>,
): Promise<void> {
  return checksOfRun().report(component, parent, check);
}

/** The zone checks of one program run under way, and the conflicts they found. */
export class RunChecks {
  private readonly underway = new Set<Promise<unknown>>();
  /** Per Domain, the conflicts found by its checks since it last reported. */
  private readonly found = new Map<pulumi.Resource, { conflicts: ZoneConflict[]; error?: Error }>();

  /** See `reportTogether`. */
  async report(
    component: string,
    parent: pulumi.Resource,
    check: () => Promise<readonly ZoneConflict[]>,
  ): Promise<void> {
    let conflicts: readonly ZoneConflict[];
    try {
      conflicts = await this.run(check);
    } catch (failure) {
      await this.settled();
      throw failure;
    }
    if (conflicts.length === 0) return;
    let found = this.found.get(parent);
    if (!found) this.found.set(parent, (found = { conflicts: [] }));
    found.conflicts.push(...conflicts);
    await this.settled();
    // The first of the Domain's checks to get here makes the error; a check of it that starts
    // after this reports on its own.
    if (!found.error) {
      found.error = conflictsError(component, found.conflicts, parent);
      this.found.delete(parent);
    }
    throw found.error;
  }

  /** `check`'s outcome, counted as under way until it settles. */
  async run<T>(check: () => Promise<T>): Promise<T> {
    const running = check();
    this.underway.add(running);
    try {
      return await running;
    } finally {
      this.underway.delete(running);
    }
  }

  /** Resolves once no check is under way, those that start meanwhile included. */
  async settled(): Promise<void> {
    while (this.underway.size > 0) await Promise.allSettled([...this.underway]);
  }
}

/** The checks of this program run: one run is one Pulumi monitor (as for the zone reads). */
function checksOfRun(): RunChecks {
  const run = pulumi.runtime.getMonitor() ?? NO_MONITOR;
  let checks = runs.get(run);
  if (!checks) runs.set(run, (checks = new RunChecks()));
  return checks;
}

const NO_MONITOR = {};
const runs = new WeakMap<object, RunChecks>();
