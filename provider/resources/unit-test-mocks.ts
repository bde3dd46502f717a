import * as pulumi from "@pulumi/pulumi";

/**
 * A program under Pulumi's unit-test mocks (`pulumi.runtime.setMocks`), as Pulumi's testing guide
 * writes them: `newResource` answers a resource with its inputs as its state, and `call` answers a
 * function with its arguments. Teams keep such tests when they add a `Domain`, so the component
 * must run under them: what only the engine or the service can answer (a zone's records, the
 * records the service asks for) is taken as not known, as in a preview, and said once per run.
 */

/**
 * Whether this program runs under unit-test mocks: `setMocks` makes the runtime's monitor a
 * `MockMonitor` (runtime/mocks.js), which holds the `Mocks` it was given (`newResource` and `call`).
 * The engine's monitor is a gRPC client and has none. Read by shape, not `instanceof`: a program may
 * load another copy of `@pulumi/pulumi` than this package does.
 */
export function runsUnderMocks(): boolean {
  const mocks = (pulumi.runtime.getMonitor() as { mocks?: Partial<Record<string, unknown>> } | undefined)
    ?.mocks;
  return typeof mocks?.newResource === "function" && typeof mocks.call === "function";
}

/**
 * The service's records of a Domain, as its dynamic resource answered them. Under mocks whose
 * `newResource` gave no `dnsRecords` (the service's answer, which echoed inputs do not hold), they
 * are unknown, as in a preview: the records named after them are declared without the values only
 * the service gives, and nothing waits on a value that never comes. Said once per run. Elsewhere the
 * answer is as given: the provider always answers an array.
 */
export function serviceRecords<T>(records: pulumi.Output<T[]>, parent: pulumi.Resource): pulumi.Output<T[]> {
  return records.apply((given) => {
    if (given !== undefined || !runsUnderMocks()) return given;
    if (firstInRun(notMockedSaid)) {
      pulumi.log.warn(
        "the unit-test mocks gave the service's domain (email-delivery:Domain) no `dnsRecords`, so the DNS records " +
          "named after the service's answer are declared with their names and contents unknown, as in a preview. " +
          "To test them, answer that resource with `dnsRecords` in the state `newResource` returns.",
        parent,
      );
    }
    return pulumi.unknown as unknown as T[];
  });
}

const notMockedSaid = new WeakSet<object>();

/** True the first time `said` is asked about this program run (one run is one monitor). */
function firstInRun(said: WeakSet<object>): boolean {
  const run = pulumi.runtime.getMonitor();
  if (!run || said.has(run)) return false;
  said.add(run);
  return true;
}
