/**
 * `pulumi-email-delivery/testing`: run a Pulumi program that uses this package against the local
 * emulator, under Pulumi's mocks (no engine, no CLI), from jest or Node's own test runner.
 *
 * @module pulumi-email-delivery/testing
 */
export { ApiError, CloudflareApiError, startEmulator } from "../emulator";
export type {
  AddDomainOptions,
  CloudflareRecordFilter,
  CloudflareRecordInput,
  CloudflareRecordJson,
  CreatedDomainJson,
  DomainJson,
  Emulator,
  EmulatorOptions,
  RouteJson,
  SeedRouteInput,
} from "../emulator";
export { destroyRun, type DestroyResult } from "./destroy";
export {
  refreshRun,
  type RefreshedProperty,
  type RefreshedResource,
  type RefreshOptions,
  type RefreshResult,
} from "./refresh";
export { isRpcSecret, rpcSecret, UNKNOWN } from "./engine-wire";
export { programFile } from "./program-file";
export * from "./run-types";
export { runProgram } from "./run-program";
export { unchangedFrom } from "./unchanged-from";
export {
  judgeSentMessage,
  type ArrivingMessage,
  type DkimResult,
  type DkimVerification,
  type DmarcOutcome,
  type DmarcPolicyName,
  type MessageJudgement,
  type SpfCheck,
  type SpfResult,
} from "./judge-sent";
export {
  assertNoPolicyViolations,
  checkPolicies,
  formatPolicyViolation,
  type AssertPolicyOptions,
  type CheckPoliciesOptions,
  type PolicyCheck,
  type PolicyLevel,
  type PolicyNotApplicable,
  type PolicyViolation,
} from "./check-policies";
