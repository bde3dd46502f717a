import type { KnownRouteMode } from "../client/types";
import { resourceRule } from "./policy-kit";
import { knownString, UNKNOWN } from "./props";
import { TYPE_TOKENS } from "./resources";
import { currentStack, DEFAULT_PRODUCTION_STACKS, notProduction, productionStacksSchema } from "./stage";

/** What the service does with a route's mail in each mode that delivers it nowhere. */
const UNDELIVERED: Record<string, string> & Record<Exclude<KnownRouteMode, "Endpoint">, string> = {
  Hold: "the service keeps it and delivers it to no endpoint",
  Bounce: "the service bounces it to the sender",
  Reject: "the service refuses it when it arrives",
};

/** In production a route delivers its mail: one that holds, bounces or rejects is flagged. */
export const routeDelivers = resourceRule<{ productionStacks: string[]; flaggedModes: string[] }>({
  name: "email-route-mode",
  description: "In production, a Route delivers its mail: routes to Hold, Bounce or Reject are flagged.",
  enforcementLevel: "advisory",
  appliesTo: [TYPE_TOKENS.Route],
  config: {
    productionStacks: productionStacksSchema(DEFAULT_PRODUCTION_STACKS),
    flaggedModes: {
      type: "array",
      items: { type: "string", enum: Object.keys(UNDELIVERED) },
      default: Object.keys(UNDELIVERED),
      description: "The route modes flagged in production.",
    },
  },
  validate(subject, report) {
    const skip = notProduction(subject.config.productionStacks);
    if (skip) subject.notApplicable(skip);
    if (subject.props.mode === UNKNOWN)
      subject.notApplicable("the route's mode is not known until `pulumi up`");
    const mode = knownString(subject.props.mode) ?? "Endpoint";
    if (!subject.config.flaggedModes.includes(mode) || !UNDELIVERED[mode]) return;
    const address = knownString(subject.props.name);
    report(
      `Route "${subject.name}"${address ? ` (${address})` : ""} sends its mail to ${mode} in production stack ` +
        `"${currentStack()}": ${UNDELIVERED[mode]}. If that is meant, set this policy's flaggedModes for the stack; ` +
        'else set mode: "Endpoint".',
    );
  },
});
