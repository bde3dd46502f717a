import { booleanSchema, CheckFailure, checkProperties, nameSchema } from "./check-inputs";
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

/** The inputs with defaults filled; they are `DomainInputs` when `failures` is empty. */
export function checkDomainInputs(news: Record<string, unknown>): {
  inputs: DomainInputs;
  failures: CheckFailure[];
} {
  const { inputs, failures } = checkProperties("Domain", news, {
    name: { schema: () => nameSchema(domainNameProblem), required: true },
    adopt: { schema: booleanSchema, default: false },
  });
  // Every property was checked and defaulted, or named in a failure.
  return { inputs: inputs as DomainInputs, failures };
}
