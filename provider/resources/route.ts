import * as pulumi from "@pulumi/pulumi";
import { EmailDeliveryDynamicResource } from "./dynamic-resource";
import { claimRoute } from "./route-claims";

export interface RouteArgs {
  /**
   * The local part of the addresses the route receives: lowercase `a-z`, `0-9`, `-` and `.`;
   * `*` for every address of the domain; or `__returnpath__`. `support` also receives
   * `support+anything@…`. Changed in place.
   * @example "support"
   */
  name: pulumi.Input<string>;
  /**
   * The domain's id. Use a `Domain`'s `domainId`: it resolves once the domain is verified, so the
   * route is created after verification (the service refuses routes on unverified domains).
   * Changing it replaces the route.
   */
  domainId: pulumi.Input<number>;
  /** The endpoint that receives the mail (the service's numeric endpoint id). Changed in place. */
  endpointId: pulumi.Input<number>;
  /**
   * What happens to matching mail: `Endpoint` delivers it, `Hold` keeps it, `Bounce` bounces it,
   * `Reject` refuses it at SMTP time.
   * @default "Endpoint"
   */
  mode?: pulumi.Input<"Endpoint" | "Bounce" | "Hold" | "Reject">;
  /**
   * What happens to spam: `Mark` delivers it marked, `Quarantine` holds it, `Fail` fails it.
   * @default "Mark"
   */
  spamMode?: pulumi.Input<"Mark" | "Quarantine" | "Fail">;
  /**
   * Take over a route with this name on this domain that already exists on the service (made
   * outside Pulumi; dynamic resources cannot be `pulumi import`ed), changing it to match these
   * arguments. Without it, `up` fails when such a route exists, even an identical one: another
   * resource or stack may manage it. Adopt only a route nothing else manages: a taken-over route
   * is deleted on `destroy` like any other.
   * @default false
   */
  adopt?: pulumi.Input<boolean>;
}

/** An inbound route: mail for `name@<domain>` goes to an endpoint. */
export class Route extends EmailDeliveryDynamicResource {
  /** The service's numeric id (also the resource id). */
  declare readonly routeId: pulumi.Output<number>;
  declare readonly uuid: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  declare readonly domainId: pulumi.Output<number>;
  declare readonly endpointId: pulumi.Output<number>;
  declare readonly mode: pulumi.Output<string>;
  declare readonly spamMode: pulumi.Output<string>;

  constructor(name: string, args: RouteArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      "routeProvider",
      "Route",
      name,
      // Every output needs its key here, even when unset: Pulumi makes output properties only
      // for the keys it is given.
      {
        name: args.name,
        // A second Route declaring the same route fails here, before anything is sent. `domainId`
        // carries the check: it is the input usually unknown at preview, when the check cannot run
        // (an unknown `name` makes it unknown too).
        domainId: pulumi.all([args.name, args.domainId]).apply(([routeName, domainId]) => {
          claimRoute(name, routeName, domainId);
          return domainId;
        }),
        endpointId: args.endpointId,
        mode: args.mode,
        spamMode: args.spamMode,
        adopt: args.adopt,
        routeId: undefined,
        uuid: undefined,
      },
      opts,
    );
  }
}
