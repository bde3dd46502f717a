import * as pulumi from "@pulumi/pulumi";
import { providerLoaderText, StoredProviderName } from "../dynamic/loader";
import { warnIfHostLoadsAnotherCopy } from "./host-copy";
import { dynamicTypeToken } from "./type-tokens";

/**
 * A dynamic resource of this package. It is registered exactly as `pulumi.dynamic.Resource`
 * registers one (type `pulumi-nodejs:dynamic/email-delivery:<type>`, run by Pulumi's Node.js
 * dynamic-provider host), except that `__provider` is a small loader that requires the installed
 * package at run time, not the provider's code serialized into every resource's state. That
 * package is the one installed where the engine starts the host (the program's folder): the first
 * resource warns if it is missing there or of another version.
 */
export abstract class EmailDeliveryDynamicResource extends pulumi.CustomResource {
  /**
   * `outputs` names the properties only the provider sets: each needs its key among the props,
   * even unset, as Pulumi makes output properties only for the keys it is given.
   */
  protected constructor(
    provider: StoredProviderName,
    type: string,
    name: string,
    inputs: pulumi.Inputs,
    outputs: readonly string[],
    opts?: pulumi.CustomResourceOptions,
  ) {
    const unset = Object.fromEntries(outputs.map((output) => [output, undefined]));
    super(
      dynamicTypeToken(type),
      name,
      { ...inputs, ...unset, __provider: providerLoaderText(provider) },
      opts,
    );
    warnIfHostLoadsAnotherCopy();
  }
}
