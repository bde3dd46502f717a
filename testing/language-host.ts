import { AsyncLocalStorage } from "node:async_hooks";
import * as pulumi from "@pulumi/pulumi";
import { setKitRunStop } from "../provider/verification/kit-run-stop";
import { MonitorRegistrations } from "./mock-monitor";
import { errorMessage, plainValue } from "./mock-values";
import { nodeRealm, runConfig, SECRET_CONFIG_KEYS } from "./node-realm";
import { rewriteClaimedRecords } from "./record-rewrites";
import { Program, ProgramRun, Registration, RunOptions } from "./run-types";
import {
  assertRunInternals,
  forgetLeakCandidates,
  outputValue,
  runInPulumiStack,
  setAllConfig,
  waitForRPCs,
} from "./pulumi-internals";
import { captureProgramLogs, captureProviderLogs, takeUnhandledRejections } from "./run-captures";
import { invokeError, RunMocks } from "./run-mocks";
import { RunRecord, STOPPED } from "./run-report";

/** The run whose program (or provider) an asynchronous step comes from. */
const runOfStep = new AsyncLocalStorage<LanguageHost>();
/**
 * How long a new run waits for the one under way to stop (see `LanguageHost.yieldTo`). Stopping ends every
 * verification wait at once, so only provider calls already sent remain, each bounded by its own
 * request timeouts.
 */
const PREVIOUS_RUN_STOP_MS = 60_000;

/**
 * The language host of one run of a program under `setMocks`: what it does under `pulumi up` (run the
 * program in its stack, wait for its registrations, end it at an error it did not handle), and
 * the stop a run that fails gets (nothing more registered, the providers' waits ended).
 */
export class LanguageHost {
  readonly record = new RunRecord();
  private readonly config: Record<string, string>;
  private readonly monitor: MonitorRegistrations;
  private readonly mocks: RunMocks;
  /** Resolves at the first failure (failed registration or unhandled runtime error). */
  private readonly failed: Promise<void>;
  private fail: () => void = () => undefined;
  /** Resolves when an error the program did not handle ends it. */
  private readonly ended: Promise<void>;
  private endProgram: () => void = () => undefined;
  private programEnded = false;
  private restore: (() => void)[] = [];
  /**
   * Why the run stopped early (its program failed, it timed out, another run began): the
   * program's later registrations and invokes are refused, and provider waits end.
   */
  private stopped: string | undefined;
  /** Ends the verification waits of this run's providers when it stops (see kit-run-stop.ts). */
  private readonly stopSignal = new AbortController();
  /** Resolves when `execute` has returned. */
  private readonly finished: Promise<void>;
  private finish: () => void = () => undefined;
  /** Mock calls (registrations, invokes) being answered now: a provider at work. */
  private inFlight = 0;
  /**
   * Set once the run has returned: what its program declares after (an async helper it did not
   * await) is in no run a test holds, and is refused as a stopped run's steps are.
   */
  private returned = false;

  constructor(private readonly options: RunOptions) {
    this.failed = new Promise((resolve) => {
      this.fail = resolve;
    });
    this.ended = new Promise((resolve) => {
      this.endProgram = () => {
        this.programEnded = true;
        resolve();
      };
    });
    this.finished = new Promise((resolve) => {
      this.finish = resolve;
    });
    this.config = runConfig(options);
    this.monitor = new MonitorRegistrations({
      registrations: this.record.registrations,
      refusal: () => this.refusal(),
      registrationFailed: (registration: Registration) => {
        this.record.report({
          source: "registration",
          subject: `${registration.type}::${registration.name}`,
          message: registration.error!,
        });
        // As the engine after a failed step: nothing more starts; what is under way finishes.
        this.stop(`${registration.type}::${registration.name} failed`);
        this.fail();
      },
    });
    this.mocks = new RunMocks(options, this.config, this.record, this.monitor);
  }

  /**
   * Stops this run for the next one and waits (bounded) until it has returned: a test that timed out
   * leaves its run going, and the next test's run must neither be refused nor receive its
   * registrations.
   */
  async yieldTo(): Promise<void> {
    const reason =
      "runProgram was called again before this run returned (its test timed out, or it was not awaited); " +
      "runs are one at a time, Pulumi's mock runtime being process-wide";
    if (this.stopped === undefined) this.record.errors.push({ source: "stopped", message: reason });
    this.stop(reason);
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<false>((resolve) => {
      timer = nodeRealm.setTimeout(() => resolve(false), PREVIOUS_RUN_STOP_MS);
    });
    const stopped = await Promise.race([this.finished.then(() => true), gaveUp]);
    nodeRealm.clearTimeout(timer);
    if (!stopped) {
      throw new Error(
        `runProgram: the previous run has not stopped ${PREVIOUS_RUN_STOP_MS / 1000} s after it was asked to ` +
          `(provider calls under way: ${this.inFlight}); runs are one at a time`,
      );
    }
  }

  /** Nothing more is registered or invoked; the providers' waits end. The first reason stands. */
  private stop(reason: string): void {
    if (this.stopped !== undefined) return;
    this.stopped = reason;
    this.stopSignal.abort(new Error(`${STOPPED}: ${reason}`));
  }

  async execute<K extends string>(program: Program<K>): Promise<ProgramRun<K>> {
    // Stopped by a later call while it waited for an earlier run: nothing of it ever ran.
    if (this.stopped !== undefined) return this.record.result({}, this.options.projectDir!);
    const { mode } = this.options;
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => this.answering(() => this.mocks.newResource(args)),
        call: (args) => this.answering(() => this.mocks.call(args)),
      },
      this.options.project ?? "email-delivery",
      this.options.stack ?? "test",
      mode === "preview",
    );
    assertRunInternals();
    // A program's own `pulumi.Config` sees the same stack config as the providers.
    setAllConfig(
      this.config,
      (this.options.secretConfigKeys ?? SECRET_CONFIG_KEYS).filter((key) => key in this.config),
    );
    this.restore.push(setKitRunStop(nodeRealm.globalThis, this.stopSignal.signal));
    this.monitor.watch();
    this.restore.push(takeUnhandledRejections((reason) => this.unhandled(reason)));
    this.restore.push(...rewriteClaimedRecords(this.options, this.record.registrations));
    this.restore.push(...captureProviderLogs(this.record.providerLogs));
    this.restore.push(...captureProgramLogs(this.record.programLogs));

    const outputs: Partial<Record<K, unknown>> = {};
    const work = runOfStep.run(this, async () => {
      let returned: Record<K, unknown> | undefined;
      // The stack resource parents top-level resources as under `pulumi up`; the program's
      // outputs are resolved one by one so that one failure does not hide the others.
      try {
        await runInPulumiStack(async () => {
          returned = await program();
          return undefined;
        });
      } catch (error) {
        // As under the engine, the program's error ends it: nothing more is registered.
        this.record.report({ source: "program", message: errorMessage(error) });
        this.stop("the program failed");
      }
      const resolving = Object.entries(returned ?? {}).map(async ([key, value]) => {
        try {
          outputs[key as K] = plainValue(await outputValue(value));
        } catch (error) {
          this.record.report({ source: "output", subject: key, message: errorMessage(error) });
        }
      });
      // After a failure some outputs never resolve (a resource whose inputs failed is never
      // registered), as under the engine, which stops the program: stop once nothing moves. The
      // failure is the error; outputs left unresolved by it are not errors of their own.
      const allResolved = Promise.all(resolving);
      const stalled = this.failed.then(() => this.drain());
      await Promise.race([allResolved, stalled]);
      await this.drain();
    });

    const timeoutMs = this.options.timeoutMs ?? 20000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = nodeRealm.setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const outcome = await Promise.race([work.then(() => "done" as const), timedOut]);
    nodeRealm.clearTimeout(timer);
    if (outcome === "timeout") {
      const stuck = this.record.registrations
        .filter((r) => r.status === "pending")
        .map((r) => `${r.type}::${r.name}`);
      this.record.report({
        source: "timeout",
        message: `run did not finish within ${timeoutMs} ms; pending registrations: ${stuck.join(", ") || "none"}`,
      });
      // The program would go on after this returns (the runtime is process-wide): creating what no
      // returned run holds, registering into the next run, failing unhandled once the emulator
      // stops. Stop it as the engine stops an update: nothing more is registered, waits end, and
      // what a provider has sent finishes, so the run holds, and destroyRun deletes, all it made.
      this.stop(`the run had timed out after ${timeoutMs} ms`);
    }
    if (this.stopped !== undefined) await this.settle();
    // Unhandled rejections (and their `rejectionHandled` counterparts) are reported after the
    // microtask queue drains: let them arrive while this run still listens.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => nodeRealm.setTimeout(resolve, 5));

    return this.record.result(outputs, this.options.projectDir!);
  }

  /** An unhandled rejection while the run listens: as the language host, the program's end. */
  private unhandled(reason: unknown): void {
    const message = errorMessage(reason);
    // A consequence of a stop (this run's, or a late step of a run stopped before) ends nothing.
    if (message.includes(STOPPED)) return;
    this.record.report({ source: "unhandled", message });
    // As the language host, which exits at the first: nothing more is registered, waits end.
    this.stop("the program failed (an error it did not handle)");
    this.fail();
    this.endProgram();
  }

  dispose(): void {
    this.returned = true;
    for (const undo of this.restore.reverse()) undo();
    this.restore = [];
    // A stopped program leaves promises pending; its errors are reported, its leftovers must not
    // fail the test process (see pulumi-internals.ts, leakCandidates).
    if (this.stopped !== undefined) forgetLeakCandidates();
    this.finish();
  }

  /** Answers a mock call, counted as under way; refused once the run has stopped. */
  private async answering<T>(answer: () => Promise<T>): Promise<T> {
    const refusal = this.refusal();
    if (refusal) throw invokeError(refusal);
    this.inFlight += 1;
    try {
      return await answer();
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Why a registration or invoke asked now is refused: this run stopped, or it comes from another run. */
  private refusal(): string | undefined {
    const owner = runOfStep.getStore();
    if (owner !== undefined && owner !== this)
      return `${STOPPED}: not registered, its run had ended (${owner.stopped ?? "it had returned"})`;
    if (this.stopped !== undefined) return `${STOPPED}: not registered, ${this.stopped}`;
    if (this.returned) return `${STOPPED}: not registered, its run had returned`;
    return undefined;
  }

  /** Waits until no mock call is under way, twice in a row across a short timer. */
  private async settle(): Promise<void> {
    let quietRounds = 0;
    while (quietRounds < 2) {
      const busy = this.inFlight > 0 || this.monitor.pending > 0;
      await new Promise((resolve) => nodeRealm.setTimeout(resolve, busy ? 20 : 5));
      quietRounds = this.inFlight === 0 && this.monitor.pending === 0 ? quietRounds + 1 : 0;
    }
  }

  /**
   * Waits until no registration is in flight and the runtime's RPC queue is empty, twice in a row
   * across a macrotask: resources created inside `apply` start only after earlier ones resolve.
   */
  private async drain(): Promise<void> {
    let quietRounds = 0;
    let lastCount = -1;
    while (quietRounds < 2) {
      // An error the program did not handle ends it, as the language host does: the engine lets
      // the operations under way finish, and nothing more is registered. The runtime's own queue
      // may never empty then (a registration waiting on what failed).
      if (this.programEnded || this.stopped !== undefined) {
        await this.settle();
        return;
      }
      await Promise.race([waitForRPCs(), this.ended]);
      await new Promise((resolve) => nodeRealm.setImmediate(resolve));
      const quiet = this.monitor.pending === 0 && this.record.registrations.length === lastCount;
      quietRounds = quiet ? quietRounds + 1 : 0;
      lastCount = this.record.registrations.length;
    }
  }
}
