import type * as pulumi from "@pulumi/pulumi";
import type { Emulator } from "../emulator";
import { TYPE_TOKENS } from "../provider/resources/type-tokens";

// What runProgram (run-program.ts) takes and gives: its options, registrations, errors and results.

/**
 * How a run answers registrations: `preview` as `pulumi preview` does (nothing made, computed
 * values unknown), `live` as `pulumi up` does (providers run against the emulator).
 */
export type RunMode = "preview" | "live";

/**
 * How an unknown value (a preview's computed value) shows in recorded inputs and outputs: a marker
 * for assertions, not the engine's sentinel (engine-wire's UNKNOWN), which providers receive.
 */
export const UNKNOWN_MARKER = "[unknown]";

/** The type token prefix of every dynamic resource (`pulumi-nodejs:dynamic/<module>:<Type>`). */
export const DYNAMIC_TYPE_PREFIX = "pulumi-nodejs:dynamic";
/**
 * The type token of the Cloudflare provider's `DnsRecord`: a program's own records, and a
 * `Domain`'s where the package cannot write them itself (a `cloudflare.provider`, no API token).
 */
export const DNS_RECORD_TYPE = "cloudflare:index/dnsRecord:DnsRecord";
/** The type token of a `Domain`'s records: `ClaimedDnsRecord`, which the package writes itself, in batches. */
export const CLAIMED_RECORD_TYPE = TYPE_TOKENS.ClaimedDnsRecord;
/** The Cloudflare provider's function the `Domain` reads a zone with. */
export const GET_DNS_RECORDS = "cloudflare:index/getDnsRecords:getDnsRecords";
/** The type token of the stack resource every program registers first. */
export const STACK_TYPE = "pulumi:pulumi:Stack";

/** One resource registration as the engine saw it. */
export interface Registration {
  /** Order in which the engine received the registration (1-based). */
  seq: number;
  /** Order in which it finished (created or failed); undefined while pending. */
  doneSeq?: number;
  /** The type token (`cloudflare:index/dnsRecord:DnsRecord`, `pulumi-nodejs:dynamic/…`). */
  type: string;
  /** The resource's name, as the program gave it. */
  name: string;
  /** The resource's URN; unset when the registration failed before one was made. */
  urn?: string;
  /** True for a custom resource (one a provider manages), false for a component or the stack. */
  custom: boolean;
  /** URN of the parent resource (the stack for top-level resources). */
  parent?: string;
  /** URNs the resource depends on: `dependsOn` plus the resources its inputs came from. */
  dependencies: string[];
  /** Per input property, the URNs its value came from. */
  propertyDependencies: Record<string, string[]>;
  /** Provider reference (`urn::id`) when one was passed explicitly. */
  provider?: string;
  /** Inputs with secrets unwrapped, unknowns as {@link UNKNOWN_MARKER}, and `__provider` taken out. */
  inputs: Record<string, unknown>;
  /** Input paths (`a.b.0`) whose values were secret. */
  secretInputs: string[];
  /** A dynamic resource's serialized provider (the `__provider` input). */
  serializedProvider?: string;
  /**
   * Read, not made: the program called `Resource.get`. The engine reads it (in previews too) and
   * never creates, updates or deletes it; `destroyRun` leaves it alone.
   */
  read?: boolean;
  /** Where the registration is: waiting for its provider, created (or read), or failed. */
  status: "pending" | "created" | "failed";
  /**
   * A dynamic provider's create that failed after making the object (it threw `{ id, properties,
   * reasons }`): the engine keeps the resource in state with these, and the update fails.
   */
  initFailure?: {
    /** The id of the object the create made. */
    id: string;
    /** The properties the engine keeps in state for it. */
    properties: Record<string, unknown>;
    /** Why the create failed. */
    reasons: string[];
  };
  /** The resource's id once created or read; unset while pending or when failed. */
  id?: string;
  /** The state returned to the program (outputs). */
  state?: Record<string, unknown>;
  /** Why the registration failed, when it did. */
  error?: string;
}

/** An invoke the program made (a provider function), as the engine received it. */
export interface Invoke {
  /** The function's token (`cloudflare:index/getDnsRecords:getDnsRecords`). */
  token: string;
  /** The arguments it was called with. */
  inputs: Record<string, unknown>;
}

/** Something that went wrong in a run: a registration, an output, the program itself, or the run. */
export interface RunError {
  /**
   * Where it came from. `stopped`: the run was stopped before it finished because another run began
   * (its test timed out, or it was not awaited); `timeout`: it reached `timeoutMs`.
   */
  source: "registration" | "output" | "program" | "unhandled" | "timeout" | "stopped" | "destroy" | "refresh";
  /** Registration `type::name`, or the output's key. */
  subject?: string;
  /** What went wrong, as the error said it. */
  message: string;
}

/** The body `cloudflare.DnsRecord` sends to `POST zones/{zone}/dns_records`. */
export interface CloudflareRecordBody {
  /** The record type (`TXT`, `MX`, `CNAME`). */
  type?: string;
  /** The record's name. */
  name?: string;
  /** The record's content. */
  content?: string;
  /** The record's TTL in seconds (1 means automatic). */
  ttl?: number;
  /** Whether Cloudflare proxies it. */
  proxied?: boolean;
  /** The MX priority. */
  priority?: number;
  /** The record's comment. */
  comment?: string;
}

/** What {@link runProgram} takes: the mode, the emulator, the stack's config and settings. */
export interface RunOptions {
  /** Whether to preview or update. */
  mode: RunMode;
  /**
   * Required for `live`, and for any run whose program reads a zone (`cloudflare.getDnsRecords`,
   * answered from the stand-in as the Cloudflare provider reads it, in previews too): where
   * dynamic providers and DnsRecords go.
   */
  emulator?: Emulator;
  /**
   * Stack config as the engine passes it to providers' `configure` and to the program's
   * `pulumi.Config` (`namespace:key` → string). With an emulator, `emailDelivery:baseUrl`,
   * `emailDelivery:apiKey`, `emailDelivery:dnsResolver` (its DNS server), `emailDelivery:dnsNameservers`
   * (its nameservers), `cloudflare:baseUrl` and `cloudflare:apiToken` default to its own, in both
   * modes; pass `undefined` for a key to leave it out.
   */
  config?: Record<string, string | undefined>;
  /** Config keys to mark secret for the program. @default ["emailDelivery:apiKey", "emailDelivery:masterKey"] */
  secretConfigKeys?: string[];
  /** The Pulumi project's name. @default "email-delivery" */
  project?: string;
  /**
   * The Pulumi project's folder, where the engine starts the provider host, which loads this
   * package from there to run the resources. @default a `programFile`'s folder, else the current one
   */
  projectDir?: string;
  /** The stack's name. @default "test" */
  stack?: string;
  /**
   * Gives up waiting for registrations after this long and reports what is pending. The program is
   * then stopped (nothing more is registered) and the run returns once the provider calls under
   * way have finished, holding everything it made. @default 20000
   */
  timeoutMs?: number;
  /**
   * Resource operations under way at once (creates in a run, deletes in `destroyRun`, reads in
   * `refreshRun`), as `pulumi up --parallel` bounds them.
   * @default 4 × the machine's cores, the engine's own default
   */
  parallel?: number;
  /** Ways to change what the mocks answer, for testing what a program does when things go wrong. */
  hooks?: {
    /** Alters a DnsRecord's body before it is written to the stand-in (e.g. to corrupt DKIM). */
    cloudflareRecord?: (body: CloudflareRecordBody, registration: Registration) => CloudflareRecordBody;
    /** Answers a registration instead of the built-in behaviour; return undefined to fall through. */
    newResource?: (
      args: pulumi.runtime.MockResourceArgs,
      registration: Registration,
    ) =>
      pulumi.runtime.MockResourceResult | undefined | Promise<pulumi.runtime.MockResourceResult | undefined>;
  };
}

/** What {@link runProgram} returns: the outputs, every registration and invoke, errors and logs. */
export interface ProgramRun<K extends string> {
  /** The folder the run's providers were loaded from (`RunOptions.projectDir`); `destroyRun` uses it too. */
  projectDir: string;
  /** The program's outputs, resolved to plain values ({@link UNKNOWN_MARKER} where unknown); absent when failed. */
  outputs: Partial<Record<K, unknown>>;
  /** Every resource registration, in the order the engine received them. */
  registrations: Registration[];
  /** The provider functions the program called (`cloudflare.getDnsRecords`), in order. */
  invokes: Invoke[];
  /** What went wrong; empty when the run succeeded. */
  errors: RunError[];
  /** Lines dynamic providers logged through `pulumi.log` (they run outside jest's console). */
  providerLogs: string[];
  /** What the program logged through `pulumi.log.info` and `warn` (in a preview, its plan). */
  programLogs: string[];
  /** Registrations of a type (a full token, or a dynamic resource's `module:Type`). */
  ofType(type: string): Registration[];
  /** The registration of a type with a name; throws if absent. */
  get(type: string, name: string): Registration;
  /** Whether `dependent` depends on `dependency`, directly or through its inputs. */
  dependsOn(dependent: Registration, dependency: Registration): boolean;
}

/** A Pulumi program: a function returning its stack outputs (`K` their names), as `pulumi up` runs it. */
export type Program<K extends string> = (() => Record<K, unknown> | Promise<Record<K, unknown>>) & {
  /** The program file's folder (set by `programFile`): the default `RunOptions.projectDir`. */
  readonly projectDir?: string;
};
