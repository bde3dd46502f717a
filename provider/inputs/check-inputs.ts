import { z } from "zod";
import { isUnknown } from "./unknown";

/** A failure as `check()` reports it: Pulumi shows it against the property at preview. */
export interface CheckFailure {
  /** The input property that is wrong. */
  property: string;
  /** Why, in words a Pulumi user reads at preview. */
  reason: string;
}

/** How one input property is checked: a zod schema and an optional default. */
export interface PropertyRule {
  schema: z.ZodType;
  /** Filled in when the property is absent. */
  default?: unknown;
  /** Required properties fail when absent and have no default. */
  required?: boolean;
}

/** What `check()` returns: the inputs a provider works with, and what is wrong with them. */
export interface CheckedInputs<T> {
  /**
   * Typed as Pulumi's `CheckResult` types them. With no failures each property passed its rule,
   * except that a value unknown at preview is still the engine's placeholder (`UNKNOWN`).
   */
  inputs: T;
  /** What is wrong with the inputs, one failure per property; empty when they passed. */
  failures: CheckFailure[];
}

/**
 * Checks each property on its own so every bad property gets its own failure, fills defaults,
 * lets unknown values (preview) through untouched, and refuses properties that are not inputs
 * (a typo such as `spam_mode` would otherwise be ignored silently). `news` is whatever the
 * program gave, whatever its static type says: this is where it becomes typed.
 */
export function checkProperties<T extends object>(
  resource: string,
  news: object,
  rules: Record<keyof T & string, PropertyRule>,
): CheckedInputs<T> {
  const given: Record<string, unknown> = { ...news };
  const inputs: Record<string, unknown> = {};
  const failures: CheckFailure[] = [];
  for (const [property, rule] of Object.entries<PropertyRule>(rules)) {
    const value = given[property];
    if (value === undefined || value === null) {
      // A list default is copied: the rules are shared by every call.
      if (rule.default !== undefined)
        inputs[property] = Array.isArray(rule.default) ? [...rule.default] : rule.default;
      else if (rule.required) failures.push({ property, reason: `${resource} needs ${property}` });
      continue;
    }
    if (isUnknown(value)) {
      inputs[property] = value;
      continue;
    }
    const parsed = rule.schema.safeParse(value);
    if (parsed.success) inputs[property] = parsed.data;
    else failures.push({ property, reason: parsed.error.issues[0]?.message ?? "is not valid" });
  }
  const known = Object.keys(rules);
  for (const property of Object.keys(given)) {
    if (property === "__provider" || known.includes(property)) continue;
    failures.push({ property, reason: `is not an input of ${resource} (inputs: ${known.join(", ")})` });
  }
  // The one place an untyped property bag becomes typed inputs (see CheckedInputs).
  return { inputs: inputs as T, failures };
}

/** A positive whole number, as the service's ids are. */
export const idSchema: z.ZodType<number> = z
  .number({
    error: (issue) => `must be a number (the service's numeric id), not ${describeValue(issue.input)}`,
  })
  .refine((value) => Number.isSafeInteger(value) && value > 0, {
    error: (issue) => `must be a positive whole number, not ${String(issue.input)}`,
  });

/** A string checked by a name rule that returns the reason it is refused. */
export function nameSchema(problem: (name: string) => string | undefined): z.ZodType<string> {
  return z
    .string({ error: (issue) => `must be a string, not ${describeValue(issue.input)}` })
    .superRefine((value, context) => {
      const reason = problem(value);
      if (reason) context.addIssue({ code: "custom", message: reason });
    });
}

/** One of a fixed set of values, named in the reason. */
export function oneOfSchema<T extends string>(values: readonly T[]): z.ZodType<T> {
  return z.enum(values as unknown as [T, ...T[]], {
    error: (issue) => `must be one of ${values.join(", ")}, not ${describeValue(issue.input)}`,
  });
}

export const booleanSchema: z.ZodType<boolean> = z.boolean({
  error: (issue) => `must be true or false, not ${describeValue(issue.input)}`,
});

/** A number of seconds within bounds. */
export function secondsSchema(min: number, max: number): z.ZodType<number> {
  return z
    .number({ error: (issue) => `must be a number of seconds, not ${describeValue(issue.input)}` })
    .refine((value) => Number.isFinite(value) && value >= min && value <= max, {
      error: (issue) => `must be between ${min} and ${max} seconds, not ${String(issue.input)}`,
    });
}

/** How a bad value is named in a reason: its type, and the value itself when short. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return value.length <= 40 ? `the text "${value}"` : "a long text";
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
