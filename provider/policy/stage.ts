/**
 * Which stacks are production: configuration, as CrossGuard configures policies. Each rule that
 * applies only in production takes `productionStacks`, stack names where `*` stands for any run of
 * characters (`prod-*`). The engine runs a policy pack with the stack's name in
 * `PULUMI_NODEJS_STACK`.
 */

/** The stacks counted as production when nothing is configured. */
export const DEFAULT_PRODUCTION_STACKS: readonly string[] = ["production", "prod"];

/** The config schema property every production-only rule takes. */
export function productionStacksSchema(defaults: readonly string[]) {
  return {
    type: "array" as const,
    items: { type: "string" as const },
    default: [...defaults],
    description: "Stack names counted as production; `*` matches any characters (`prod-*`).",
  };
}

/** The name of the stack being previewed or updated, as the engine tells the pack. */
export function currentStack(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.PULUMI_NODEJS_STACK || undefined;
}

/**
 * Whether `stack` matches one of `patterns`: whole names, without regard to case (`Production` and
 * `PROD` are production), `*` matching any characters.
 */
export function isProductionStack(stack: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => stackPattern(pattern).test(stack));
}

/** Each pattern's expression, made once: the rules ask for every resource of the stack. */
const expressions = new Map<string, RegExp>();

function stackPattern(pattern: string): RegExp {
  let made = expressions.get(pattern);
  if (!made) {
    const expression = pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    made = new RegExp(`^${expression}$`, "i");
    expressions.set(pattern, made);
  }
  return made;
}

/**
 * Whether the rule applies to this stack: `undefined` when it does, else the reason it does not
 * (for `notApplicable`), so that a rule reads `const skip = …; if (skip) args.notApplicable(skip)`.
 */
export function notProduction(
  patterns: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const stack = currentStack(env);
  if (stack === undefined) return "the stack's name is not known here (PULUMI_NODEJS_STACK is not set)";
  if (isProductionStack(stack, patterns)) return undefined;
  return `stack "${stack}" is not production (productionStacks: ${patterns.join(", ")})`;
}
