/**
 * `pulumi-email-delivery/policy`: CrossGuard policies over this package's resources, for
 * `pulumi preview --policy-pack`. Compose them into a pack of your own, or use the ready one
 * shipped with the package (`node_modules/pulumi-email-delivery/policy-pack`). Only this entry
 * uses `@pulumi/policy` (an optional peer dependency), and only for its types: constructing the
 * `PolicyPack` is the pack's own program's job, since a pack starts serving when constructed.
 *
 * @example
 * // index.ts of your policy pack
 * import { PolicyPack } from "@pulumi/policy";
 * import { emailDeliveryPolicies } from "pulumi-email-delivery/policy";
 *
 * new PolicyPack("mail-posture", {
 *   policies: emailDeliveryPolicies({ productionStacks: ["prod-*"], enforcementLevels: { "email-dmarc-enforced": "mandatory" } }),
 * });
 *
 * @module pulumi-email-delivery/policy
 */
import type {
  EnforcementLevel,
  Policies,
  ResourceValidationPolicy,
  StackValidationPolicy,
} from "@pulumi/policy";
import { dmarcAggregateReports, dmarcEnforced, dmarcPublished, dmarcSubdomainPolicy } from "./dmarc-rules";
import { dkimKey, dmarcAlignment } from "./dkim-alignment-rules";
import { mxSingleProvider } from "./mx-rule";
import { routeDelivers } from "./route-rule";
import { spfRecord, spfSingleRecord } from "./spf-rules";
import { dnsTtl } from "./ttl-rule";
import { verificationRequired } from "./verification-rule";
import { currentStack, DEFAULT_PRODUCTION_STACKS, isProductionStack } from "./stage";

export { DEFAULT_PRODUCTION_STACKS, isProductionStack } from "./stage";
export {
  dkimKey,
  dmarcAggregateReports,
  dmarcAlignment,
  dmarcEnforced,
  dmarcPublished,
  dmarcSubdomainPolicy,
  dnsTtl,
  mxSingleProvider,
  routeDelivers,
  spfRecord,
  spfSingleRecord,
  verificationRequired,
};

/** Every policy of the package, in the order a pack lists them. */
const ALL_POLICIES = [
  dmarcPublished,
  dmarcEnforced,
  dmarcSubdomainPolicy,
  dmarcAggregateReports,
  dmarcAlignment,
  spfRecord,
  spfSingleRecord,
  dkimKey,
  mxSingleProvider,
  verificationRequired,
  routeDelivers,
  dnsTtl,
] as const;

/** The policies' names, as a policy config file and `--policy-pack-config` name them. */
export const POLICY_NAMES = ALL_POLICIES.map((policy) => policy.name);

/** One of {@link POLICY_NAMES}. */
export type EmailDeliveryPolicyName =
  | "email-dmarc-published"
  | "email-dmarc-enforced"
  | "email-dmarc-subdomain-policy"
  | "email-dmarc-aggregate-reports"
  | "email-dmarc-alignment"
  | "email-spf-record"
  | "email-spf-single-record"
  | "email-dkim-key"
  | "email-mx-single-provider"
  | "email-verification"
  | "email-route-mode"
  | "email-dns-ttl";

/** What {@link emailDeliveryPolicies} takes: the pack's own defaults, which a config file still overrides. */
export interface EmailDeliveryPolicyOptions {
  /**
   * Stack names counted as production by every rule that applies only there; `*` matches any
   * characters. A config file's `productionStacks` for a rule still wins.
   * @default ["production", "prod"]
   * @example ["prod", "prod-*"]
   */
  productionStacks?: string[];
  /**
   * An enforcement level per policy, instead of its own. A config file's level still wins, and so
   * does its `"all"`.
   * @default each policy's own: "mandatory" for the SPF, MX and DMARC enforcement rules, and in a
   * production stack (see `stack`) for {@link PRODUCTION_MANDATORY} too; "advisory" for the rest
   * @example { "email-dmarc-enforced": "advisory" }
   */
  enforcementLevels?: Partial<Record<EmailDeliveryPolicyName, EnforcementLevel>>;
  /**
   * The stack the pack runs for, which decides the default levels: in a stack that matches
   * `productionStacks` (without regard to case), the rules of {@link PRODUCTION_MANDATORY} are
   * mandatory; elsewhere advisory.
   * @default the stack the engine runs the pack for (`PULUMI_NODEJS_STACK`); none outside the engine
   * @example "production"
   */
  stack?: string;
}

/**
 * The rules, advisory elsewhere, that are mandatory by default in a production stack: what they
 * find leaves spoofing open (no DMARC policy, DMARC on a DKIM nothing checks) or fails every
 * signature (a revoked, testing or short DKIM key). The SPF, MX and DMARC enforcement rules are
 * mandatory in every stack they apply to.
 */
export const PRODUCTION_MANDATORY: readonly EmailDeliveryPolicyName[] = [
  "email-dmarc-published",
  "email-dmarc-alignment",
  "email-dkim-key",
];

/**
 * The package's policies, with the pack's defaults. Each keeps its name, so a config file
 * (`pulumi preview --policy-pack-config`) sets its level and settings per stack.
 */
export function emailDeliveryPolicies(options: EmailDeliveryPolicyOptions = {}): Policies {
  const stack = options.stack ?? currentStack();
  const production =
    stack !== undefined && isProductionStack(stack, options.productionStacks ?? DEFAULT_PRODUCTION_STACKS);
  return ALL_POLICIES.map((policy) => {
    const name = policy.name as EmailDeliveryPolicyName;
    const level =
      options.enforcementLevels?.[name] ??
      (production && PRODUCTION_MANDATORY.includes(name) ? ("mandatory" as const) : undefined);
    const withLevel = { ...policy, ...(level && { enforcementLevel: level }) };
    return options.productionStacks ? withProductionStacks(withLevel, options.productionStacks) : withLevel;
  });
}

/**
 * The policy with another default for `productionStacks`: in its schema, which the engine fills
 * in, and under what `getConfig()` returns, which is all a policy gets outside the engine.
 */
function withProductionStacks<P extends ResourceValidationPolicy | StackValidationPolicy>(
  policy: P,
  productionStacks: string[],
): P {
  const schema = policy.configSchema;
  if (!schema?.properties.productionStacks) return policy;
  const configSchema = {
    ...schema,
    properties: {
      ...schema.properties,
      productionStacks: { ...schema.properties.productionStacks, default: productionStacks },
    },
  };
  const withDefault = <A extends { getConfig<T extends object>(): T }>(args: A): A => ({
    ...args,
    getConfig: <T extends object>() => ({ productionStacks, ...args.getConfig<T>() }) as T,
  });
  if ("validateStack" in policy) {
    const validateStack = policy.validateStack;
    return {
      ...policy,
      configSchema,
      validateStack: (args, report) => validateStack(withDefault(args), report),
    };
  }
  const validate = (policy as ResourceValidationPolicy).validateResource;
  if (!validate || Array.isArray(validate)) return { ...policy, configSchema } as P;
  const validateResource: typeof validate = (args, report) => validate(withDefault(args), report);
  // The rule's resource type, kept: `@pulumi/policy` reads it only on a single function.
  const type = (validate as { __pulumiType?: string }).__pulumiType;
  if (type) Object.defineProperty(validateResource, "__pulumiType", { value: type });
  return { ...policy, configSchema, validateResource } as P;
}
