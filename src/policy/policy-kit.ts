import type {
  EnforcementLevel,
  Policy,
  PolicyConfigSchema,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationArgs,
  StackValidationPolicy,
} from "@pulumi/policy";
import { plainProps, PlainProps } from "./props";

/**
 * How this package's policies are written: each names its rule, its default enforcement level and
 * its config schema (with the defaults the engine fills in, which the rule applies again in code,
 * since outside the engine `getConfig()` returns nothing), and gets plain properties (props.ts).
 * Only types come from `@pulumi/policy`: nothing here loads it.
 */

/** What a resource rule gets: the resource, plain, and its config. */
export interface ResourceSubject<C> {
  type: string;
  /** The resource's name in the program. */
  name: string;
  urn: string;
  /** The parent's URN, when it has one. */
  parent: string | undefined;
  props: PlainProps;
  /** The rule's config: the schema's defaults under what was configured. */
  config: C;
  /** Records the rule as not applying to this resource, with the reason (`args.notApplicable`). */
  notApplicable(reason: string): never;
}

/** A resource of a stack as a stack rule gets it. */
export interface StackResource {
  type: string;
  name: string;
  urn: string;
  parent: { type: string; urn: string } | undefined;
  /** The URNs it depends on: `dependsOn`, and the resources its inputs came from. */
  dependencies: string[];
  props: PlainProps;
}

/** The parts every rule declares. */
interface RuleBase<C extends object> {
  name: string;
  description: string;
  enforcementLevel: EnforcementLevel;
  /** Each property with its `default`, which is also the code's. */
  config?: { [K in keyof C]: PolicyConfigSchema["properties"][string] & { default: C[K] } };
  remediationSteps?: string;
}

/** The config the rule runs with: the schema's defaults, then what the engine configured. */
function configOf<C extends object>(rule: RuleBase<C>, configured: object): C {
  const defaults = Object.fromEntries(
    Object.entries(rule.config ?? {}).map(([key, schema]) => [key, (schema as { default: unknown }).default]),
  );
  const given = Object.fromEntries(Object.entries(configured).filter(([, value]) => value !== undefined));
  return { ...defaults, ...given } as C;
}

/** What CrossGuard reads of a rule besides its validation: name, description, level, config schema. */
function policyOf<C extends object>(rule: RuleBase<C>): Policy {
  return {
    name: rule.name,
    description: rule.description,
    enforcementLevel: rule.enforcementLevel,
    configSchema: rule.config ? { properties: rule.config as PolicyConfigSchema["properties"] } : undefined,
    remediationSteps: rule.remediationSteps,
  };
}

/** A resource policy from a rule over plain properties. */
export function resourceRule<C extends object = object>(
  rule: RuleBase<C> & { validate(subject: ResourceSubject<C>, report: (message: string) => void): void },
): ResourceValidationPolicy {
  return {
    ...policyOf(rule),
    validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
      rule.validate(
        {
          type: args.type,
          name: args.name,
          urn: args.urn,
          parent: args.opts?.parent || undefined,
          props: plainProps(args.props),
          config: configOf(rule, args.getConfig()),
          notApplicable: (reason) => args.notApplicable(reason),
        },
        (message) => reportViolation(message),
      );
    },
  };
}

/** A stack policy from a rule over plain properties. */
export function stackRule<C extends object = object>(
  rule: RuleBase<C> & {
    validate(resources: StackResource[], config: C, report: (message: string, urn: string) => void): void;
  },
): StackValidationPolicy {
  return {
    ...policyOf(rule),
    validateStack: (args: StackValidationArgs, reportViolation: ReportViolation) => {
      const resources = args.resources.map((resource): StackResource => ({
        type: resource.type,
        name: resource.name,
        urn: resource.urn,
        parent: resource.parent ? { type: resource.parent.type, urn: resource.parent.urn } : undefined,
        dependencies: (resource.dependencies ?? []).map((dependency) => dependency.urn),
        props: plainProps(resource.props),
      }));
      rule.validate(resources, configOf(rule, args.getConfig()), (message, urn) =>
        reportViolation(message, urn),
      );
    },
  };
}
