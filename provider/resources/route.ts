import * as pulumi from "@pulumi/pulumi";
import type { KnownRouteMode, KnownSpamMode } from "../client";
import { EmailDeliveryDynamicResource } from "./dynamic-resource";
import { claimRoute } from "./route-claims";

/**
 * What a {@link Route} takes.
 *
 * @example
 * { name: "support", domainId: domain.domainId, endpointId: 1, mode: "Endpoint" }
 */
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
   * A positive whole number. Changing it replaces the route.
   * @example domain.domainId
   */
  domainId: pulumi.Input<number>;
  /**
   * The endpoint that receives the mail: the service's endpoint id, a positive whole number.
   * Changed in place.
   * @example 1
   */
  endpointId: pulumi.Input<number>;
  /**
   * What happens to matching mail: `Endpoint` delivers it, `Hold` keeps it, `Bounce` bounces it,
   * `Reject` refuses it at SMTP time.
   * @default "Endpoint"
   */
  mode?: pulumi.Input<KnownRouteMode>;
  /**
   * What happens to spam: `Mark` delivers it marked, `Quarantine` holds it, `Fail` fails it.
   * @default "Mark"
   */
  spamMode?: pulumi.Input<KnownSpamMode>;
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

/**
 * `domainId`, carrying the check that no other Route of this program declares the same route: a
 * second one then fails before anything is sent. With a plain-text name the check rides on
 * `domainId` itself, which is unknown at preview exactly when the check cannot run. A name that
 * is an output is checked beside it instead, so an unknown or secret name never makes `domainId`
 * unknown or secret in the preview.
 */
function withRouteClaim(resource: string, args: RouteArgs): pulumi.Input<number> {
  const claimant = { resource };
  const routeName = args.name;
  if (typeof routeName === "string") {
    return pulumi.output(args.domainId).apply((domainId) => {
      claimRoute(claimant, routeName, domainId);
      return domainId;
    });
  }
  pulumi.all([routeName, args.domainId]).apply(([name, domainId]) => claimRoute(claimant, name, domainId));
  return args.domainId;
}

/**
 * An inbound route: mail for `name@<domain>` goes to an endpoint.
 *
 * @group Resources
 */
export class Route extends EmailDeliveryDynamicResource {
  /** The service's numeric id (also the resource id). */
  declare readonly routeId: pulumi.Output<number>;
  /** The service's opaque id. */
  declare readonly uuid: pulumi.Output<string>;
  /** The local part it receives (`support`, `*`). */
  declare readonly name: pulumi.Output<string>;
  /** The id of the domain it receives for. */
  declare readonly domainId: pulumi.Output<number>;
  /** The id of the endpoint it delivers to. */
  declare readonly endpointId: pulumi.Output<number>;
  /** What happens to matching mail, as the service says. */
  declare readonly mode: pulumi.Output<string>;
  /** What happens to spam, as the service says. */
  declare readonly spamMode: pulumi.Output<string>;

  constructor(name: string, args: RouteArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      "routeProvider",
      "Route",
      name,
      {
        name: args.name,
        domainId: withRouteClaim(name, args),
        endpointId: args.endpointId,
        mode: args.mode,
        spamMode: args.spamMode,
        adopt: args.adopt,
      },
      ["routeId", "uuid"],
      opts,
    );
  }
}
