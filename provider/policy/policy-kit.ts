import type {
  EnforcementLevel,
  Policy,
  PolicyConfigSchema,
  PolicyResource,
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

/** The schema's defaults of a rule's config. */
function defaultsOf<C extends object>(rule: RuleBase<C>): C {
  return Object.fromEntries(
    Object.entries(rule.config ?? {}).map(([key, schema]) => [key, (schema as { default: unknown }).default]),
  ) as C;
}

/** The config the rule runs with: the schema's defaults, then what the engine configured. */
function configOf<C extends object>(defaults: C, configured: object): C {
  const given = Object.entries(configured).filter(([, value]) => value !== undefined);
  return given.length === 0 ? defaults : ({ ...defaults, ...Object.fromEntries(given) } as C);
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
  rule: RuleBase<C> & {
    /**
     * The types of the resources the rule judges: the rule is not called for others. A stack of
     * 1,000 domains sends 7,000 resources to every rule, and most rules judge one kind of them.
     */
    appliesTo: readonly [string, ...string[]];
    validate(subject: ResourceSubject<C>, report: (message: string) => void): void;
  },
): ResourceValidationPolicy {
  const defaults = defaultsOf(rule);
  const types = new Set(rule.appliesTo);
  const validateResource = (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
    if (!types.has(args.type)) return;
    rule.validate(new Subject(args, configOf(defaults, args.getConfig())), (message) =>
      reportViolation(message),
    );
  };
  // A rule of one type says so as `validateResourceOfType` does: `@pulumi/policy` then skips the
  // other types before it decodes their properties, and reports the rule not applicable to them.
  if (rule.appliesTo.length === 1)
    Object.defineProperty(validateResource, "__pulumiType", { value: rule.appliesTo[0] });
  return { ...policyOf(rule), validateResource };
}

/** What a resource rule gets, made from `@pulumi/policy`'s arguments. */
class Subject<C> implements ResourceSubject<C> {
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  readonly parent: string | undefined;
  #props: PlainProps | undefined;

  constructor(
    private readonly args: ResourceValidationArgs,
    readonly config: C,
  ) {
    this.type = args.type;
    this.name = args.name;
    this.urn = args.urn;
    this.parent = args.opts?.parent || undefined;
  }

  /**
   * Copied when first read: a rule that judges records declared by hand returns on a Domain's own
   * records by their names, before it reads a property.
   */
  get props(): PlainProps {
    return (this.#props ??= plainProps(this.args.props));
  }

  notApplicable(reason: string): never {
    return this.args.notApplicable(reason);
  }
}

/** A resource of the stack as a stack rule gets it, from `@pulumi/policy`'s. */
class StackMember implements StackResource {
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  readonly parent: { type: string; urn: string } | undefined;
  readonly dependencies: string[];
  #props: PlainProps | undefined;

  constructor(private readonly resource: PolicyResource) {
    this.type = resource.type;
    this.name = resource.name;
    this.urn = resource.urn;
    this.parent = resource.parent ? { type: resource.parent.type, urn: resource.parent.urn } : undefined;
    this.dependencies = (resource.dependencies ?? []).map((dependency) => dependency.urn);
  }

  /** Copied when first read: most rules read the properties of a few kinds of resource. */
  get props(): PlainProps {
    return (this.#props ??= plainProps(this.resource.props));
  }
}

/** A stack policy from a rule over plain properties. */
export function stackRule<C extends object = object>(
  rule: RuleBase<C> & {
    validate(resources: StackResource[], config: C, report: (message: string, urn: string) => void): void;
  },
): StackValidationPolicy {
  const defaults = defaultsOf(rule);
  return {
    ...policyOf(rule),
    validateStack: (args: StackValidationArgs, reportViolation: ReportViolation) => {
      const resources = args.resources.map((resource) => new StackMember(resource));
      rule.validate(resources, configOf(defaults, args.getConfig()), (message, urn) =>
        reportViolation(message, urn),
      );
    },
  };
}
