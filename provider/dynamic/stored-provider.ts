import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { CheckedInputs } from "../inputs";

/**
 * `__provider`, the property the engine sends with a dynamic resource's inputs and keeps in its
 * state: the text that loads its provider (see `loader.ts`). It means nothing to the service.
 */
export interface StoredProviderProperty {
  __provider?: string;
}

/**
 * `props` without `__provider`, for outputs made from old state: outputs are what the resource
 * records, and the provider host adds the current text to them itself.
 */
export function withoutStoredProvider<T extends StoredProviderProperty>({
  __provider: _text,
  ...props
}: T): Omit<T, "__provider"> {
  return props;
}

/**
 * What `read()` answers, as the provider host uses it: the object's state and the inputs that
 * would make it, or no id when it is gone (the engine then drops it from state). Pulumi's own
 * `ReadResult` types `inputs` as outputs, which neither answer is.
 */
export type ReadAnswer<Inputs, Outputs> =
  | {
      /** The object's id: it exists. */
      id: string;
      /** Its state as read. */
      props: Outputs;
      /** The inputs that would make it as it is. */
      inputs: Inputs;
    }
  | {
      /** No id: the object is gone. */
      id: undefined;
      /** Nothing. */
      props: Record<string, never>;
    };

/**
 * What a provider throws when a create or update got part way: Pulumi's dynamic-provider host
 * reads `id`, `properties` and `reasons` off it and keeps the resource in state with those
 * properties (an "initialization failure"), so the next `up` updates it instead of starting over.
 * `properties` must carry `__provider`: Pulumi stores exactly these properties.
 */
export class PartialWriteError extends Error {
  readonly reasons: string[];

  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown> & StoredProviderProperty,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.reasons = [message];
  }
}

/**
 * What `create()` answers: the new object's id and everything it records. Pulumi's
 * `CreateResult` leaves `outs` optional; these providers always give them.
 */
export interface Created<Outputs> {
  /** The new object's id on the service (or Cloudflare), as Pulumi records it. */
  id: string;
  /** Everything the resource records in state. */
  outs: Outputs;
}

/** What `update()` answers: everything the object records now. */
export interface Updated<Outputs> {
  /** Everything the resource records in state. */
  outs: Outputs;
}

/**
 * A provider of this package as its callers see it: Pulumi's `ResourceProvider` (which it
 * extends, so the engine's host and `pulumi.dynamic.Resource` take it) with every method present
 * and each answer's type exact. What the methods take stays a plain object: the engine sends
 * property bags of whatever shape this or an earlier version stored, and each method reads them
 * as its own (typed) parameters say. `ReadInputs`: the inputs `read()` finds, when they differ
 * from `check()`'s; `Stored`: what `update()` records, when state from an older version may lack
 * some outputs.
 */
export interface TypedResourceProvider<Inputs, Outputs, ReadInputs = Inputs, Stored = Outputs>
  extends dynamic.ResourceProvider {
  configure(request: dynamic.ConfigureRequest): Promise<void>;
  check(olds: unknown, news: object): Promise<CheckedInputs<Inputs>>;
  diff(id: string, olds: object, news: object): Promise<dynamic.DiffResult>;
  create(inputs: object): Promise<Created<Outputs>>;
  read(id: string, props?: object): Promise<ReadAnswer<ReadInputs, Outputs>>;
  update(id: string, olds: object, news: object): Promise<Updated<Stored>>;
  delete(id: string, props?: object): Promise<void>;
}
