import type * as pulumi from "@pulumi/pulumi";
import { createDnsRecord, getDnsRecords, readDnsRecord } from "./cloudflare-mocks";
import type { MonitorRegistrations } from "./mock-monitor";
import { errorMessage, isRecord, plainValue, rpcValue, throughStruct } from "./mock-values";
import { commandParallel, Lanes } from "./parallel";
import { DynamicProvider, loadProvider, nodeRealm, providerAtWork } from "./node-realm";
import { DNS_RECORD_TYPE, DYNAMIC_TYPE_PREFIX, GET_DNS_RECORDS, Registration, RunOptions } from "./run-types";
import type { RunRecord } from "./run-report";

/**
 * A run's answers to Pulumi's mocks (`pulumi.runtime.Mocks`): registrations and invokes, and the
 * package's providers run as the engine would run them (see run-program.ts for the two modes).
 */
export class RunMocks {
  /** Providers as the host holds them: one per distinct `__provider` text (per process = per run here). */
  private readonly providers = new Map<string, Promise<DynamicProvider>>();
  private readonly lanes: Lanes;

  constructor(
    private readonly options: RunOptions,
    private readonly config: Record<string, string>,
    private readonly record: RunRecord,
    private readonly monitor: MonitorRegistrations,
  ) {
    this.lanes = new Lanes(commandParallel(options.parallel, "runProgram"));
  }

  /** An invoke: `cloudflare.getDnsRecords` from the stand-in; anything else is unexpected. */
  async call(args: pulumi.runtime.MockCallArgs): Promise<Record<string, unknown>> {
    const inputs = plainValue(args.inputs) as Record<string, unknown>;
    this.record.invokes.push({ token: args.token, inputs });
    if (args.token === GET_DNS_RECORDS) {
      if (!this.options.emulator)
        throw new Error(`${args.token} reads the zone: give runProgram an emulator`);
      try {
        return await getDnsRecords(this.options.emulator, inputs);
      } catch (error) {
        throw invokeError(errorMessage(error));
      }
    }
    this.record.report({
      source: "program",
      subject: args.token,
      message: `unexpected invoke ${args.token}`,
    });
    return {};
  }

  async newResource(args: pulumi.runtime.MockResourceArgs): Promise<pulumi.runtime.MockResourceResult> {
    const registration = this.monitor.current ?? this.orphan(args);
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
      seq: this.record.registrations.length + 1,
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
    this.record.registrations.push(registration);
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
    // Creates run `parallel` at a time, as the engine's step executor runs them.
    if (args.type.startsWith(DYNAMIC_TYPE_PREFIX))
      return this.lanes.run(() => providerAtWork.run(true, () => this.createDynamic(registration, raw)));
    if (args.type === DNS_RECORD_TYPE)
      return this.lanes.run(() => createDnsRecord(this.options, registration));
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
 * An error as an invoke's answer. Pulumi's invoke passes on only an error's `details`, as the
 * engine's gRPC error carries the provider's message: without it the program would see "Error".
 */
export function invokeError(message: string): Error {
  return Object.assign(new Error(message), { details: message });
}
