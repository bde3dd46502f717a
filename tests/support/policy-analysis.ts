/**
 * The policies run as the engine runs them, in this process: the kit's own (`testing/`, which
 * `checkPolicies` of `pulumi-email-delivery/testing` is made of), with the lower-level calls the
 * policy tests use: one resource through Analyze, resources through AnalyzeStack, a URN as the
 * engine makes it. Configuration (levels set by a config file) is module-global in
 * `@pulumi/policy` and set only over gRPC: tests/policy/pack.test.ts runs the pack as a process for that.
 */
export {
  analyzeResource,
  analyzeRun,
  analyzeStack,
  urnOf,
  type AnalyzedResource,
  type Analysis,
  type Diagnostic,
} from "../../testing/policy-analysis";
