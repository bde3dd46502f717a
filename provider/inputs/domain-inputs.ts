import { booleanSchema, CheckedInputs, checkProperties, nameSchema, PropertyRule } from "./check-inputs";
import { domainNameProblem } from "./names";

/**
 * What the domain provider works with once `check()` has passed. (A type, not an interface: it is
 * also a property bag, `Record<string, unknown>`.)
 */
export type ServiceDomainInputs = {
  /** Lowercase DNS name. Changing it replaces the domain. */
  name: string;
  /** Take over a domain that already exists on the service instead of failing. */
  adopt: boolean;
};

/** How `check()` reads each of ServiceDomainInputs's properties. */
const DOMAIN_RULES: Record<keyof ServiceDomainInputs, PropertyRule> = {
  name: { schema: nameSchema(domainNameProblem), required: true },
  adopt: { schema: booleanSchema, default: false },
};

export function checkServiceDomainInputs(news: object): CheckedInputs<ServiceDomainInputs> {
  return checkProperties<ServiceDomainInputs>("Domain", news, DOMAIN_RULES);
}
