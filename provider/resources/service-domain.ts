import * as pulumi from "@pulumi/pulumi";
import type { DnsRecord } from "../client";
import { EmailDeliveryDynamicResource } from "./dynamic-resource";

export interface ServiceDomainArgs {
  name: pulumi.Input<string>;
  adopt?: pulumi.Input<boolean>;
}

/** The domain on the email service itself: the `Domain` component's first child. */
export class ServiceDomain extends EmailDeliveryDynamicResource {
  declare readonly domainId: pulumi.Output<number>;
  declare readonly uuid: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  declare readonly spfStatus: pulumi.Output<string | null>;
  declare readonly dkimStatus: pulumi.Output<string | null>;
  declare readonly mxStatus: pulumi.Output<string | null>;
  declare readonly returnPathStatus: pulumi.Output<string | null>;
  declare readonly createdAt: pulumi.Output<string | null>;
  declare readonly dnsRecords: pulumi.Output<DnsRecord[]>;

  constructor(name: string, args: ServiceDomainArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      "domainProvider",
      "Domain",
      name,
      // Every output needs its key here, even when unset (see Route).
      {
        name: args.name,
        adopt: args.adopt,
        domainId: undefined,
        uuid: undefined,
        spfStatus: undefined,
        dkimStatus: undefined,
        mxStatus: undefined,
        returnPathStatus: undefined,
        createdAt: undefined,
        dnsRecords: undefined,
      },
      opts,
    );
  }
}
