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
  { id: string; props: Outputs; inputs: Inputs } | { id: undefined; props: Record<string, never> };

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
