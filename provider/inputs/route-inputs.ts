import type { RouteMode, SpamMode } from "../client";
import {
  booleanSchema,
  CheckedInputs,
  checkProperties,
  idSchema,
  nameSchema,
  oneOfSchema,
  PropertyRule,
} from "./check-inputs";
import { routeNameProblem } from "./names";

/** The route modes a `Route` accepts (what matching mail goes to). */
export const ROUTE_MODES = ["Endpoint", "Bounce", "Hold", "Reject"] as const;
/** The spam modes a `Route` accepts (what happens to spam). */
export const SPAM_MODES = ["Mark", "Quarantine", "Fail"] as const;

/** What the route provider works with once `check()` has passed. */
export interface RouteInputs {
  name: string;
  domainId: number;
  endpointId: number;
  mode: RouteMode;
  spamMode: SpamMode;
  adopt: boolean;
}

/** How `check()` reads each of RouteInputs's properties. */
const ROUTE_RULES: Record<keyof RouteInputs, PropertyRule> = {
  name: { schema: nameSchema(routeNameProblem), required: true },
  domainId: { schema: idSchema, required: true },
  endpointId: { schema: idSchema, required: true },
  mode: { schema: oneOfSchema(ROUTE_MODES), default: "Endpoint" },
  spamMode: { schema: oneOfSchema(SPAM_MODES), default: "Mark" },
  adopt: { schema: booleanSchema, default: false },
};

export function checkRouteInputs(news: object): CheckedInputs<RouteInputs> {
  return checkProperties<RouteInputs>("Route", news, ROUTE_RULES);
}
