import { booleanSchema, CheckedInputs, checkProperties, nameSchema } from "./check-inputs";
import { domainNameProblem } from "./names";

/**
 * What the domain provider works with once `check()` has passed. (A type, not an interface: it is
 * also a property bag, `Record<string, unknown>`.)
 */
export type DomainInputs = {
  /** Lowercase DNS name. Changing it replaces the domain. */
  name: string;
  /** Take over a domain that already exists on the service instead of failing. */
  adopt: boolean;
};

export function checkDomainInputs(news: object): CheckedInputs<DomainInputs> {
  return checkProperties<DomainInputs>("Domain", news, {
    name: { schema: () => nameSchema(domainNameProblem), required: true },
    adopt: { schema: booleanSchema, default: false },
  });
}
