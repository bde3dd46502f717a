import { emailDeliveryPolicies, type EmailDeliveryPolicyOptions } from "../provider/policy";
import { analyzeRun, type AnyPolicy, type PolicyLevel } from "./policy-analysis";
import { STACK_TYPE, type ProgramRun } from "./run-types";

/**
 * The package's CrossGuard policies over a program run through the kit, in a test: no Pulumi CLI,
 * no policy pack process. Each registration goes through `@pulumi/policy`'s own Analyze handler,
 * then the stack through AnalyzeStack, as `pulumi preview --policy-pack` runs the ready pack
 * (policy-analysis.ts). `@pulumi/policy` (an optional peer dependency) is loaded on the first call.
 */

export type { PolicyLevel } from "./policy-analysis";

/** What {@link checkPolicies} takes: the stack, and the defaults a pack would set in code. */
export interface CheckPoliciesOptions {
  /**
   * The stack the policies run for, as the engine tells a pack (`PULUMI_NODEJS_STACK`): it decides
   * where the production rules apply.
   * @default the run's stack (its URNs'; `runProgram`'s `stack` option, "test" unless given)
   */
  stack?: string;
  /**
   * Stack names counted as production (`*` matches any characters), as `emailDeliveryPolicies`
   * takes them. Ignored with `policies`.
   * @default the package's: ["production", "prod"]
   */
  productionStacks?: string[];
  /**
   * An enforcement level per policy name (`"email-dmarc-enforced": "mandatory"`), as
   * `emailDeliveryPolicies` takes them. Ignored with `policies`.
   * @default each policy's own (docs/policy.md, "The rules")
   */
  enforcementLevels?: Record<string, PolicyLevel>;
  /**
   * The policies to run instead of the package's defaults: your own pack's list (`@pulumi/policy`
   * `Policy` objects, e.g. `emailDeliveryPolicies({...})` with your own beside them).
   * @default emailDeliveryPolicies({ productionStacks, enforcementLevels })
   */
  policies?: readonly object[];
}

/** One violation a policy reported, as `pulumi preview` prints it. */
export interface PolicyViolation {
  /** The policy's name (`email-mx-single-provider`). */
  policy: string;
  /** Its enforcement level: a `mandatory` violation fails `pulumi preview`. */
  level: PolicyLevel;
  /**
   * The policy's message as the CLI prints it: the policy's description, then on the next line
   * what it found and what to do.
   */
  message: string;
  /** The resource's URN ("" for a stack violation about no one resource). */
  urn: string;
  /** The resource's type token (`email-delivery:index:Domain`), from its URN; "" without one. */
  resourceType: string;
  /** The resource's name in the program (`mail`), from its URN; "" without one. */
  resourceName: string;
}

/** What the policies found over a run. */
export interface PolicyCheck {
  /** The stack they ran for. */
  stack: string;
  /** Every violation, in the order the engine reports them (resources as registered, then the stack). */
  violations: PolicyViolation[];
  /** Where a policy did not apply, with its reason (a preview's unknown SPF content, a staging stack). */
  notApplicable: PolicyNotApplicable[];
}

/** A policy that did not apply to a resource, and why. */
export interface PolicyNotApplicable {
  /** The policy's name. */
  policy: string;
  /** Why it did not apply (what is not known yet, or where it applies instead). */
  reason: string;
  /** The resource's URN ("" for the stack as a whole). */
  urn: string;
}

/** The stack a run's URNs name (`urn:pulumi:<stack>::…`). */
function stackOf(run: Pick<ProgramRun<string>, "registrations">): string | undefined {
  const urn = (run.registrations.find((r) => r.type === STACK_TYPE) ?? run.registrations.find((r) => r.urn))
    ?.urn;
  return urn?.match(/^urn:pulumi:([^:]+)::/)?.[1];
}

/**
 * Runs the package's policies (or `options.policies`) over a `runProgram` result, as the engine
 * runs a policy pack over that preview or update: each registration's inputs, then the stack's
 * outputs. Needs `@pulumi/policy` installed (an optional peer dependency); says so when it is not.
 * A policy runs with its level and settings from code: a `--policy-pack-config` file has no say here.
 *
 * @example
 * const run = await runProgram(program, { mode: "preview", emulator, stack: "production" });
 * assertNoPolicyViolations(await checkPolicies(run));
 */
export async function checkPolicies(
  run: Pick<ProgramRun<string>, "registrations">,
  options: CheckPoliciesOptions = {},
): Promise<PolicyCheck> {
  const stack = options.stack ?? stackOf(run) ?? "test";
  const policies: readonly AnyPolicy[] =
    options.policies ??
    emailDeliveryPolicies({
      productionStacks: options.productionStacks,
      enforcementLevels: options.enforcementLevels as EmailDeliveryPolicyOptions["enforcementLevels"],
    });
  const analysis = await analyzeRun(policies, run, stack);
  return {
    stack,
    violations: analysis.diagnostics.map((d) => {
      const parts = d.urn.split("::");
      const resourceType = d.urn ? (parts[2] ?? "").split("$").pop()! : "";
      return { ...d, resourceType, resourceName: d.urn ? (parts[3] ?? "") : "" };
    }),
    notApplicable: analysis.notApplicable,
  };
}

/** What {@link assertNoPolicyViolations} fails on. */
export interface AssertPolicyOptions {
  /**
   * The lowest level that fails: `"advisory"` fails on every violation, `"mandatory"` only on
   * those that would fail `pulumi preview`.
   * @default "advisory"
   */
  failOn?: "advisory" | "mandatory";
}

/**
 * A violation as the check's error lists it: `[mandatory] email-mx-single-provider on
 * email-delivery:index:Domain "mail": <description>`, then what it found, indented.
 */
export function formatPolicyViolation(violation: PolicyViolation): string {
  const on = violation.urn ? ` on ${violation.resourceType} "${violation.resourceName}"` : "";
  return `[${violation.level}] ${violation.policy}${on}: ${violation.message.replace(/\n/g, "\n    ")}`;
}

/**
 * Throws when the check found violations at `failOn` or above, naming each policy and resource
 * with its message: in jest (or Node's test runner) the test fails with that list. Returns the
 * check otherwise.
 *
 * @example
 * assertNoPolicyViolations(await checkPolicies(run), { failOn: "mandatory" });
 */
export function assertNoPolicyViolations(check: PolicyCheck, options: AssertPolicyOptions = {}): PolicyCheck {
  const failOn = options.failOn ?? "advisory";
  const failing = check.violations.filter(
    (v) =>
      v.level === "mandatory" || v.level === "remediate" || (failOn === "advisory" && v.level === "advisory"),
  );
  if (failing.length === 0) return check;
  const names = [...new Set(failing.map((v) => v.policy))].join(", ");
  const count = failing.length === 1 ? "1 policy violation" : `${failing.length} policy violations`;
  throw new Error(
    `${count} in stack "${check.stack}" (${names}):\n` +
      failing.map((v) => `  ${formatPolicyViolation(v)}`).join("\n"),
  );
}
