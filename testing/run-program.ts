import * as pulumi from "@pulumi/pulumi";
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

let running = false;

/** Runs `program` under mocks and returns its resolved outputs, the registrations and the errors. */
export async function runProgram<K extends string>(
  program: Program<K>,
  options: RunOptions,
): Promise<ProgramRun<K>> {
  if (running)
    throw new Error("runProgram: Pulumi's mock runtime is process-global; await one run at a time");
  if (options.mode === "live" && !options.emulator)
    throw new Error("runProgram: live mode needs an emulator");
  running = true;
  const run = new Run({ ...options, projectDir: options.projectDir ?? program.projectDir ?? process.cwd() });
  try {
    return await run.execute(program);
  } finally {
    run.dispose();
    running = false;
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
  /** Set when the run timed out: the program's later registrations and invokes fail with it. */
  private stopped: string | undefined;
  /** Mock calls (registrations, invokes) being answered now: a provider at work. */
  private inFlight = 0;

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
    this.config = runConfig(options);
  }

  async execute<K extends string>(program: Program<K>): Promise<ProgramRun<K>> {
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
    this.wrapMonitor();
    this.captureUnhandled();
    this.captureProviderLogs();
    this.captureProgramLogs();

    const outputs: Partial<Record<K, unknown>> = {};
    const work = (async () => {
      let returned: Record<K, unknown> | undefined;
      // The stack resource parents top-level resources as under `pulumi up`; the program's
      // outputs are resolved one by one so that one failure does not hide the others.
      try {
        await pulumi.runtime.runInPulumiStack(async () => {
          returned = await program();
          return undefined;
        });
      } catch (error) {
        this.errors.push({ source: "program", message: errorMessage(error) });
      }
      const resolving = Object.entries(returned ?? {}).map(async ([key, value]) => {
        try {
          const resolved = await (pulumi.output(value) as unknown as OutputInternals).promise(true);
          outputs[key as K] = plainValue(resolved);
        } catch (error) {
          this.errors.push({ source: "output", subject: key, message: errorMessage(error) });
        }
      });
      // After a failure some outputs never resolve (a resource whose inputs failed is never
      // registered), as under the engine, which stops the program: stop once nothing moves.
      const allResolved = Promise.all(resolving).then(() => true);
      const stalled = this.failed.then(() => this.drain()).then(() => false);
      if (!(await Promise.race([allResolved, stalled]))) {
        const missing = Object.keys(returned ?? {}).filter(
          (key) => !(key in outputs) && !this.errors.some((e) => e.source === "output" && e.subject === key),
        );
        for (const key of missing) {
          this.errors.push({ source: "output", subject: key, message: "never resolved: the program failed" });
        }
      }
      await this.drain();
    })();

    const timeoutMs = this.options.timeoutMs ?? 20000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const outcome = await Promise.race([work.then(() => "done" as const), timedOut]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      const stuck = this.registrations
        .filter((r) => r.status === "pending")
        .map((r) => `${r.type}::${r.name}`);
      this.errors.push({
        source: "timeout",
        message: `run did not finish within ${timeoutMs} ms; pending registrations: ${stuck.join(", ") || "none"}`,
      });
      // The program would go on after this returns (the runtime is process-wide): creating what no
      // returned run holds, registering into the next run, failing unhandled once the emulator
      // stops. Stop it as the engine stops an update: nothing more is registered, and what a
      // provider has under way finishes (each has its own time limit), so the run holds, and
      // destroyRun deletes, everything it made.
      this.stopped = `not done: the run had timed out after ${timeoutMs} ms`;
      await this.settle();
    }
    // Unhandled rejections (and their `rejectionHandled` counterparts) are reported after the
    // microtask queue drains: let them arrive while this run still listens.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 5));

    const registrations = [...this.registrations];
    const find = (type: string) => (r: Registration) =>
      r.type === type || (r.type.startsWith(`${DYNAMIC_TYPE_PREFIX}/`) && r.type.endsWith(`/${type}`));
    return {
      projectDir: this.options.projectDir!,
      outputs,
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
    for (const undo of this.restore.reverse()) undo();
    this.restore = [];
  }

  /** Answers a mock call, counted as under way; refused once the run has stopped. */
  private async answering<T>(answer: () => Promise<T>): Promise<T> {
    if (this.stopped !== undefined) throw new Error(this.stopped);
    this.inFlight += 1;
    try {
      return await answer();
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Waits until no mock call is under way, twice in a row across a short timer. */
  private async settle(): Promise<void> {
    let quietRounds = 0;
    while (quietRounds < 2) {
      await new Promise((resolve) => setTimeout(resolve, this.inFlight > 0 ? 20 : 5));
      quietRounds = this.inFlight === 0 ? quietRounds + 1 : 0;
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
      if (this.programEnded) {
        while (this.pending > 0) await new Promise((resolve) => setImmediate(resolve));
        return;
      }
      await Promise.race([runtimeInternals.waitForRPCs(), this.ended]);
      await new Promise((resolve) => setImmediate(resolve));
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
            this.errors.push({
              source: "registration",
              subject: `${registration.type}::${registration.name}`,
              message: registration.error,
            });
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
    // A failed registration rejects outputs nobody may await; keep those as errors, not crashes.
    // The runtime rethrows a resource's preparation error (e.g. an input from a failed resource)
    // from a promise nobody awaits; under the engine that ends the program. Record it and mark the
    // promise handled, so jest (which tracks it until `rejectionHandled`) does not fail the test.
    const onRejection = (reason: unknown, promise: Promise<unknown>) => {
      // One failure rejects a chain of wrapper promises: record each message once.
      const message = errorMessage(reason);
      if (!this.errors.some((e) => e.source === "unhandled" && e.message === message)) {
        this.errors.push({ source: "unhandled", message });
      }
      this.fail();
      this.endProgram();
      promise.catch(() => undefined);
    };
    nodeRealm.process.on("unhandledRejection", onRejection);
    this.restore.push(() => nodeRealm.process.off("unhandledRejection", onRejection));
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
        // Pulumi's invoke passes on only an error's `details`, as the engine's gRPC error carries
        // the provider's message: without it the program would see an empty error.
        const message = errorMessage(error);
        throw Object.assign(new Error(message), { details: message });
      }
    }
    this.errors.push({ source: "program", subject: args.token, message: `unexpected invoke ${args.token}` });
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
