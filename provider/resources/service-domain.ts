import * as pulumi from "@pulumi/pulumi";
import { CHECK_STATUS_FIELDS, type DnsRecord } from "../client/types";
import { EmailDeliveryDynamicResource } from "./dynamic-resource";

/** The `Domain` component's `name` and `adopt`, with the same rules (see `DomainArgs`). */
export interface ServiceDomainArgs {
  /** The sending domain, lowercase. Changing it replaces the domain. */
  name: pulumi.Input<string>;
  /** Take over a domain of this name that already exists on the service. @default false */
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
      { name: args.name, adopt: args.adopt },
      ["domainId", "uuid", ...CHECK_STATUS_FIELDS, "createdAt", "dnsRecords"],
      opts,
    );
  }
}
