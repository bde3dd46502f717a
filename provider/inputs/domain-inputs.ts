import { booleanSchema, CheckFailure, checkProperties, nameSchema } from "./check-inputs";
import { domainNameProblem } from "./names";

/** What the domain provider works with once `check()` has passed. */
export interface DomainInputs {
  /** Lowercase DNS name. Changing it replaces the domain. */
  name: string;
  /** Take over a domain that already exists on the service instead of failing. */
  adopt: boolean;
}

export function checkDomainInputs(news: Record<string, unknown>): {
  inputs: Record<string, unknown>;
  failures: CheckFailure[];
} {
  return checkProperties("Domain", news, {
    name: { schema: () => nameSchema(domainNameProblem), required: true },
    adopt: { schema: booleanSchema, default: false },
  });
}
