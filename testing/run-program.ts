import { AsyncLocalStorage } from "node:async_hooks";
import * as pulumi from "@pulumi/pulumi";
import { KIT_RUN_STOP } from "../provider/verification/kit-run-stop";
import { createDnsRecord, getDnsRecords, readDnsRecord } from "./cloudflare-mocks";
import { errorMessage, isRecord, plainValue, rpcValue, throughStruct } from "./mock-values";
import {
  DynamicProvider,
  loadProvider,
  nodeRealm,
  providerAtWork,
  runConfig,
  SECRET_CONFIG_KEYS,
} from "./node-realm";
import {
  DNS_RECORD_TYPE,
  DYNAMIC_TYPE_PREFIX,
  GET_DNS_RECORDS,
  Invoke,
  Program,
  ProgramRun,
  Registration,
  RunError,
  RunOptions,
} from "./program-run";

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
 * What a run takes and gives is in program-run.ts, the value conversions in mock-values.ts, where
 * providers run in node-realm.ts, the Cloudflare provider's part in cloudflare-mocks.ts.
 */

/** Internal (untyped) runtime call that `pulumi up` itself uses to wait for outstanding registrations. */
const runtimeInternals = pulumi.runtime as unknown as { waitForRPCs(): Promise<void> };

/** Output internals the runtime itself uses to read a value without `apply` (which skips unknowns). */
interface OutputInternals {
  promise(withUnknowns?: boolean): Promise<unknown>;
}

// --- the run --------------------------------------------------------------------------------------

/**
 * Runs called and not yet returned: Pulumi's mock runtime is process-wide, so at most one of them
 * executes. A call joins the set before its first `await`, so that calls made together
 * (`Promise.all`, `test.concurrent`) see one another, as a call made later sees a run left going.
 */
const unfinished = new Set<Run>();
/** The run whose program (or provider) an asynchronous step comes from. */
const runOfStep = new AsyncLocalStorage<Run>();
/**
 * How long a new run waits for the one under way to stop (see `Run.yieldTo`). Stopping ends every
 * verification wait at once, so only provider calls already sent remain, each bounded by its own
 * request timeouts.
 */
const PREVIOUS_RUN_STOP_MS = 60_000;
/** What every consequence of a stop says: such errors are not the run's causes, and are not reported. */
const STOPPED = "stopped by the test kit";

/** Runs `program` under mocks and returns its resolved outputs, the registrations and the errors. */
export async function runProgram<K extends string>(
  program: Program<K>,
  options: RunOptions,
): Promise<ProgramRun<K>> {
  if (options.mode === "live" && !options.emulator)
    throw new Error("runProgram: live mode needs an emulator");
  const earlier = [...unfinished];
  const run = new Run({ ...options, projectDir: options.projectDir ?? program.projectDir ?? process.cwd() });
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

class Run {
  readonly registrations: Registration[] = [];
  readonly invokes: Invoke[] = [];
  readonly errors: RunError[] = [];
  readonly providerLogs: string[] = [];
  readonly programLogs: string[] = [];
  private readonly config: Record<string, string>;
  private readonly providers = new Map<string, Promise<DynamicProvider>>();
  private current: Registration | undefined;
  private pending = 0;
  /** Resolves at the first failure (failed registration or unhandled runtime error). */
  private readonly failed: Promise<void>;
  private fail: () => void = () => undefined;
  /** Resolves when an error the program did not handle ends it. */
  private readonly ended: Promise<void>;
  private endProgram: () => void = () => undefined;
  private programEnded = false;
  private doneCounter = 0;
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
    if (this.stopped === undefined) this.errors.push({ source: "stopped", message: reason });
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
    if (this.stopped !== undefined) return this.result({});
    const { mode } = this.options;
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => this.answering(() => this.newResource(args)),
        call: (args) => this.answering(() => this.call(args)),
      },
      this.options.project ?? "email-delivery",
      this.options.stack ?? "test",
      mode === "preview",
    );
    // A program's own `pulumi.Config` sees the same stack config as the providers.
    pulumi.runtime.setAllConfig(
      this.config,
      (this.options.secretConfigKeys ?? SECRET_CONFIG_KEYS).filter((key) => key in this.config),
    );
    (nodeRealm.globalThis as unknown as Record<symbol, unknown>)[KIT_RUN_STOP] = this.stopSignal.signal;
    this.restore.push(() => {
      const holder = nodeRealm.globalThis as unknown as Record<symbol, unknown>;
      if (holder[KIT_RUN_STOP] === this.stopSignal.signal) delete holder[KIT_RUN_STOP];
    });
    this.wrapMonitor();
    this.captureUnhandled();
    this.captureProviderLogs();
    this.captureProgramLogs();

    const outputs: Partial<Record<K, unknown>> = {};
    const work = runOfStep.run(this, async () => {
      let returned: Record<K, unknown> | undefined;
      // The stack resource parents top-level resources as under `pulumi up`; the program's
      // outputs are resolved one by one so that one failure does not hide the others.
      try {
        await pulumi.runtime.runInPulumiStack(async () => {
          returned = await program();
          return undefined;
        });
      } catch (error) {
        // As under the engine, the program's error ends it: nothing more is registered.
        this.report({ source: "program", message: errorMessage(error) });
        this.stop("the program failed");
      }
      const resolving = Object.entries(returned ?? {}).map(async ([key, value]) => {
        try {
          const resolved = await (pulumi.output(value) as unknown as OutputInternals).promise(true);
          outputs[key as K] = plainValue(resolved);
        } catch (error) {
          this.report({ source: "output", subject: key, message: errorMessage(error) });
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
      const stuck = this.registrations
        .filter((r) => r.status === "pending")
        .map((r) => `${r.type}::${r.name}`);
      this.report({
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

    return this.result(outputs);
  }

  /** What the run gives: copies, which the run's late steps (if any) never change. */
  private result<K extends string>(outputs: Partial<Record<K, unknown>>): ProgramRun<K> {
    const registrations = [...this.registrations];
    const find = (type: string) => (r: Registration) =>
      r.type === type || (r.type.startsWith(`${DYNAMIC_TYPE_PREFIX}/`) && r.type.endsWith(`/${type}`));
    return {
      projectDir: this.options.projectDir!,
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

  dispose(): void {
    this.returned = true;
    for (const undo of this.restore.reverse()) undo();
    this.restore = [];
    if (this.stopped !== undefined) forgetPendingPromises();
    this.finish();
  }

  /**
   * Records an error once per cause. One failure reaches a test several ways: a failed registration
   * rejects the resource's outputs, and every resource given them fails to serialize
   * (`error serializing property "content": … failed to register new resource mail [type]: …`),
   * each rejection also unhandled. Only the cause is kept, and nothing the kit's stop caused.
   */
  private report(error: RunError): void {
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
      const busy = this.inFlight > 0 || this.pending > 0;
      await new Promise((resolve) => nodeRealm.setTimeout(resolve, busy ? 20 : 5));
      quietRounds = this.inFlight === 0 && this.pending === 0 ? quietRounds + 1 : 0;
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
      await Promise.race([runtimeInternals.waitForRPCs(), this.ended]);
      await new Promise((resolve) => nodeRealm.setImmediate(resolve));
      const quiet = this.pending === 0 && this.registrations.length === lastCount;
      quietRounds = quiet ? quietRounds + 1 : 0;
      lastCount = this.registrations.length;
    }
  }

  /**
   * The mock API hides parents and dependencies; wrap the mock monitor's `registerResource` to read
   * them from the request. The monitor calls `newResource` synchronously, so `current` pairs them.
   */
  private wrapMonitor(): void {
    type Callback = (error: unknown, response?: { getUrn(): string }) => void;
    interface RegisterRequest {
      getType(): string;
      getName(): string;
      getCustom(): boolean;
      getParent(): string;
      getProvider(): string;
      getDependenciesList(): string[];
      getPropertydependenciesMap(): {
        forEach(fn: (deps: { getUrnsList(): string[] }, key: string) => void): void;
      };
    }
    interface Monitor {
      registerResource(req: RegisterRequest, callback: Callback): Promise<void>;
    }
    const monitor = pulumi.runtime.getMonitor() as unknown as Monitor;
    const original = monitor.registerResource.bind(monitor);
    monitor.registerResource = (req, callback) => {
      // Refused without a record: the engine never sees what a stopped program declares.
      const refusal = this.refusal();
      if (refusal) {
        callback(new Error(refusal));
        return Promise.resolve();
      }
      const propertyDependencies: Record<string, string[]> = {};
      req.getPropertydependenciesMap().forEach((deps, key) => {
        propertyDependencies[key] = deps.getUrnsList();
      });
      const registration: Registration = {
        seq: this.registrations.length + 1,
        type: req.getType(),
        name: req.getName(),
        custom: req.getCustom(),
        parent: req.getParent() || undefined,
        dependencies: req.getDependenciesList(),
        propertyDependencies,
        provider: req.getProvider() || undefined,
        inputs: {},
        secretInputs: [],
        status: "pending",
      };
      this.registrations.push(registration);
      this.pending += 1;
      this.current = registration;
      try {
        return original(req, (error, response) => {
          this.pending -= 1;
          registration.doneSeq = ++this.doneCounter;
          if (error) {
            registration.status = "failed";
            registration.error = errorMessage(error);
            this.report({
              source: "registration",
              subject: `${registration.type}::${registration.name}`,
              message: registration.error,
            });
            // As the engine after a failed step: nothing more starts; what is under way finishes.
            this.stop(`${registration.type}::${registration.name} failed`);
            this.fail();
          } else {
            registration.status = "created";
            registration.urn = response?.getUrn();
          }
          callback(error, response);
        });
      } finally {
        this.current = undefined;
      }
    };
  }

  private captureUnhandled(): void {
    // A failed registration rejects outputs nobody awaits, and the runtime rethrows a resource's
    // preparation error (an input from a failed resource) from a promise nobody awaits. Under the
    // engine the language host takes these, reports each error once and ends the program; here
    // the run is the language host. While it runs it takes the process's unhandled rejections
    // from the test runner (node:test fails the test at one, jest at one it still tracks) and
    // gives them back after; a rejection handled late is then no warning either.
    const process = nodeRealm.process;
    const onRejection = (reason: unknown) => {
      const message = errorMessage(reason);
      // A consequence of a stop (this run's, or a late step of a run stopped before) ends nothing.
      if (message.includes(STOPPED)) return;
      this.report({ source: "unhandled", message });
      // As the language host, which exits at the first: nothing more is registered, waits end.
      this.stop("the program failed (an error it did not handle)");
      this.fail();
      this.endProgram();
    };
    const onHandledLate = () => undefined;
    const taken = process.rawListeners("unhandledRejection") as ((...args: unknown[]) => void)[];
    process.removeAllListeners("unhandledRejection");
    process.on("unhandledRejection", onRejection);
    process.on("rejectionHandled", onHandledLate);
    this.restore.push(() => {
      // Given back only as they were taken: a test runner that changed its own since (jest at the
      // end of a test that timed out) keeps what it set.
      const untouched = process
        .rawListeners("unhandledRejection")
        .every((listener) => listener === onRejection);
      process.off("unhandledRejection", onRejection);
      process.off("rejectionHandled", onHandledLate);
      if (untouched) for (const listener of taken) process.on("unhandledRejection", listener);
    });
  }

  private captureProviderLogs(): void {
    // Providers log through their own copy of @pulumi/pulumi, which, with no engine, writes to
    // Node's console (not jest's): collect those lines for the test instead of printing them.
    // Under plain Node that console is the program's and the test's too: only a provider at work
    // is collected, the rest prints.
    const target = nodeRealm.console;
    for (const method of ["log", "warn", "error"] as const) {
      const original = target[method];
      target[method] = (...args: unknown[]) => {
        if (providerAtWork.getStore()) this.providerLogs.push(args.map(String).join(" "));
        else original.apply(target, args);
      };
      this.restore.push(() => {
        target[method] = original;
      });
    }
  }

  private captureProgramLogs(): void {
    // The program's own @pulumi/pulumi, with no engine, logs "info: [runtime] …" to jest's console.
    for (const method of ["log", "warn"] as const) {
      const original = console[method];
      console[method] = (...args: unknown[]) => {
        const line = args.map(String).join(" ");
        if (!providerAtWork.getStore() && /^(info|warning): \[runtime\] /.test(line))
          this.programLogs.push(line);
        else original(...args);
      };
      this.restore.push(() => {
        console[method] = original;
      });
    }
  }

  /** An invoke: `cloudflare.getDnsRecords` from the stand-in; anything else is unexpected. */
  private async call(args: pulumi.runtime.MockCallArgs): Promise<Record<string, unknown>> {
    const inputs = plainValue(args.inputs) as Record<string, unknown>;
    this.invokes.push({ token: args.token, inputs });
    if (args.token === GET_DNS_RECORDS) {
      if (!this.options.emulator)
        throw new Error(`${args.token} reads the zone: give runProgram an emulator`);
      try {
        return await getDnsRecords(this.options.emulator, inputs);
      } catch (error) {
        throw invokeError(errorMessage(error));
      }
    }
    this.report({ source: "program", subject: args.token, message: `unexpected invoke ${args.token}` });
    return {};
  }

  private async newResource(
    args: pulumi.runtime.MockResourceArgs,
  ): Promise<pulumi.runtime.MockResourceResult> {
    const registration = this.current ?? this.orphan(args);
    const raw = args.inputs as Record<string, unknown>;
    const secretInputs: string[] = [];
    const inputs = plainValue(raw, secretInputs) as Record<string, unknown>;
    if (typeof inputs.__provider === "string") registration.serializedProvider = inputs.__provider;
    delete inputs.__provider;
    registration.inputs = inputs;
    registration.secretInputs = secretInputs;

    const result = await this.answer(args, registration, raw);
    registration.id = result.id;
    registration.state = plainValue(result.state) as Record<string, unknown>;
    delete registration.state.__provider;
    return result;
  }

  /**
   * A registration the wrapper did not see: a read (`Resource.get`, which carries the id), recorded
   * without parent or dependencies.
   */
  private orphan(args: pulumi.runtime.MockResourceArgs): Registration {
    const registration: Registration = {
      seq: this.registrations.length + 1,
      type: args.type,
      name: args.name,
      ...(args.id !== undefined && args.id !== "" && { read: true }),
      custom: args.custom ?? true,
      dependencies: [],
      propertyDependencies: {},
      inputs: {},
      secretInputs: [],
      status: "created",
    };
    this.registrations.push(registration);
    return registration;
  }

  private async answer(
    args: pulumi.runtime.MockResourceArgs,
    registration: Registration,
    raw: Record<string, unknown>,
  ): Promise<pulumi.runtime.MockResourceResult> {
    const hooked = await this.options.hooks?.newResource?.(args, registration);
    if (hooked) return hooked;
    if (registration.read) {
      // The engine reads a `get` in previews too, through the provider; it never creates it.
      if (args.type === DNS_RECORD_TYPE && this.options.emulator)
        return readDnsRecord(this.options, registration, args.id!);
      return { id: args.id, state: raw };
    }
    if (this.options.mode === "preview") {
      // A preview runs the dynamic providers' check (with unknowns as the engine sends them), so a
      // bad input fails there; nothing is created. No id: Pulumi shows it as unknown, and so is
      // every output the inputs do not cover.
      if (args.type.startsWith(DYNAMIC_TYPE_PREFIX))
        await providerAtWork.run(true, () => this.checkDynamic(raw));
      return { id: undefined, state: raw };
    }
    if (args.type.startsWith(DYNAMIC_TYPE_PREFIX))
      return providerAtWork.run(true, () => this.createDynamic(registration, raw));
    if (args.type === DNS_RECORD_TYPE) return createDnsRecord(this.options, registration);
    return { id: args.custom ? `${args.name}-id` : undefined, state: raw };
  }

  /** What a preview asks the dynamic-provider host: check only, with unknowns as RPC sentinels. */
  private async checkDynamic(raw: Record<string, unknown>): Promise<void> {
    const news = nodeRealm.JSON.parse(JSON.stringify(rpcValue(raw))) as Record<string, unknown>;
    if (typeof news.__provider !== "string") return;
    const provider = await this.provider(news.__provider);
    const failures = (await provider.check?.({}, news))?.failures ?? [];
    if (failures.length > 0) throw new Error(failures.map((f) => `${f.property}: ${f.reason}`).join("; "));
  }

  /** What the dynamic-provider host does for a new resource: configure once, check, create. */
  private async createDynamic(
    registration: Registration,
    raw: Record<string, unknown>,
  ): Promise<pulumi.runtime.MockResourceResult> {
    // The engine strips secrets before calling the host (it does not accept secrets).
    const news = nodeRealm.JSON.parse(JSON.stringify(plainValue(raw))) as Record<string, unknown>;
    const text = news.__provider;
    if (typeof text !== "string") throw new Error(`${registration.name}: no __provider input`);
    const provider = await this.provider(text);

    let inputs = news;
    if (provider.check) {
      const checked = await provider.check({}, news);
      const failures = checked.failures ?? [];
      if (failures.length > 0) {
        throw new Error(failures.map((f) => `${f.property}: ${f.reason}`).join("; "));
      }
      inputs = { ...(checked.inputs ?? news), __provider: text };
      inputs = nodeRealm.JSON.parse(JSON.stringify(throughStruct(inputs))) as Record<string, unknown>;
    }
    let created: Awaited<ReturnType<DynamicProvider["create"]>>;
    try {
      created = await provider.create(inputs);
    } catch (error) {
      // As the host's grpcResponseFromError: an error with an id is an initialization failure.
      if (isRecord(error) && typeof error.id === "string" && error.id) {
        const properties = isRecord(error.properties) ? error.properties : {};
        registration.initFailure = {
          id: error.id,
          properties: plainValue(throughStruct(properties)) as Record<string, unknown>,
          reasons: Array.isArray(error.reasons) ? error.reasons.map(String) : [],
        };
        delete registration.initFailure.properties.__provider;
      }
      throw new Error(errorMessage(error), { cause: error });
    }
    const state = throughStruct({ ...created.outs, __provider: text });
    return { id: created.id, state };
  }

  private provider(text: string): Promise<DynamicProvider> {
    // As the host: deserialized and configured once per distinct text (per process = per run here).
    let provider = this.providers.get(text);
    if (!provider) {
      provider = loadProvider(text, this.config, this.options.project, this.options.projectDir);
      this.providers.set(text, provider);
    }
    return provider;
  }
}

/**
 * The cause inside a serialization chain: a resource given a failed resource's output fails with
 * `error serializing property "x": ` before the cause, once per level of nesting.
 */
function causeOf(message: string): string {
  return message.replace(/^(?:error serializing property "[^"]*": )+/, "");
}

/**
 * An error as an invoke's answer. Pulumi's invoke passes on only an error's `details`, as the
 * engine's gRPC error carries the provider's message: without it the program would see "Error".
 */
function invokeError(message: string): Error {
  return Object.assign(new Error(message), { details: message });
}

/**
 * Forgets the promises a stopped program left pending. Pulumi's runtime keeps each of its promises
 * until it settles and, at process exit, reports those left and sets exit code 1 unless errors
 * were logged (runtime/debuggable.js): under the engine a failed program's leftovers are never
 * reported. The run reported its errors itself, so its leftovers must not fail the test process.
 */
function forgetPendingPromises(): void {
  const store = (globalThis as { globalStore?: { leakCandidates?: Set<unknown> } }).globalStore;
  store?.leakCandidates?.clear();
}
