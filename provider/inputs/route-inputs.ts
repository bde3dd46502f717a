import { ROUTE_MODES, SPAM_MODES, type RouteMode, type SpamMode } from "../client/types";
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

/** What the route provider works with once `check()` has passed. */
export interface RouteInputs {
  /** The route's name: the local part it matches (`*` for every address). */
  name: string;
  /** The id of the service's domain it belongs to. Changing it replaces the route. */
  domainId: number;
  /** The id of the endpoint matching mail goes to. */
  endpointId: number;
  /** What matching mail goes to. */
  mode: RouteMode;
  /** What happens to spam. */
  spamMode: SpamMode;
  /** Take over an identical route that already exists on the service instead of failing. */
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
