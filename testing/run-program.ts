import { startCommand } from "./parallel";
import { Program, ProgramRun, RunOptions } from "./run-types";
import { LanguageHost } from "./language-host";

/**
 * Programs under `pulumi.runtime.setMocks`, in two modes:
 *
 * - `preview` (dryRun): nothing is created. Dynamic resources' `check` runs (with unknowns as the
 *   engine sends them), so bad inputs fail as in a real preview; every registration is recorded
 *   and answered with its inputs and no id, so ids and every output that is not an input stay
 *   unknown, as in a real `pulumi preview`.
 * - `live`: what `pulumi up` would do, minus the CLI. Dynamic resources are executed the way the
 *   dynamic-provider host does it (deserialize `__provider` with require-from-string, `configure`,
 *   `check`, `create`), `cloudflare.DnsRecord`s are POSTed to the emulator's Cloudflare stand-in
 *   with the body the real provider sends, everything else echoes its inputs.
 *
 * In both, `cloudflare.getDnsRecords` is answered from the stand-in, read as the Cloudflare
 * provider reads it (the engine runs invokes in previews too). `destroyRun` then deletes what a
 * live run made, as `pulumi destroy` would.
 *
 * Pulumi's runtime is process-global, so runs are strictly sequential and each one starts with a
 * fresh `setMocks` and drains every registration before it returns.
 *
 * What a run takes and gives is in run-types.ts; the run itself, as the language host runs it
 * (its lifecycle and its stop), in language-host.ts, the mock monitor's registrations in mock-monitor.ts, the answers to the mocks (the
 * package's providers run as the engine runs them) in run-mocks.ts, what the run takes from the
 * process in run-captures.ts, its record and errors in run-report.ts; the value conversions in
 * mock-values.ts, where providers run in node-realm.ts, the Cloudflare provider's part in
 * cloudflare-mocks.ts, and every use of `@pulumi/pulumi` beyond its public API in
 * pulumi-internals.ts.
 */

/**
 * Runs called and not yet returned: Pulumi's mock runtime is process-wide, so at most one of them
 * executes. A call joins the set before its first `await`, so that calls made together
 * (`Promise.all`, `test.concurrent`) see one another, as a call made later sees a run left going.
 */
const unfinished = new Set<LanguageHost>();

/** Runs `program` under mocks and returns its resolved outputs, the registrations and the errors. */
export async function runProgram<K extends string>(
  program: Program<K>,
  options: RunOptions,
): Promise<ProgramRun<K>> {
  if (options.mode === "live" && !options.emulator)
    throw new Error("runProgram: live mode needs an emulator");
  if (options.mode === "live") startCommand();
  const earlier = [...unfinished];
  const run = new LanguageHost({
    ...options,
    projectDir: options.projectDir ?? program.projectDir ?? process.cwd(),
  });
  unfinished.add(run);
  try {
    // A run still under way here was not awaited, or its test timed out, or was called together
    // with this one: stop it (nothing more is registered, waits end) and let it finish what it
    // sent, so it never registers into this run. A run stopped before it began never begins.
    const yielded = await Promise.allSettled(earlier.map((previous) => previous.yieldTo()));
    const refused = yielded.find((outcome) => outcome.status === "rejected");
    if (refused) throw refused.reason;
    return await run.execute(program);
  } finally {
    run.dispose();
    unfinished.delete(run);
  }
}
