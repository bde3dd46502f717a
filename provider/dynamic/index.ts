export * from "./claimed-record-provider";
export type { ClaimedRecordOutputs, OriginalRecord, Ownership } from "./claimed-record-contents";
export * from "./domain-provider";
export * from "./route-provider";
export {
  verificationProvider,
  type VerificationOutputs,
  type VerificationProvider,
} from "./verification-provider";
export type { Created, ReadAnswer, TypedResourceProvider, Updated } from "./stored-provider";
export type {
  CheckedInputs,
  CheckFailure,
  ClaimedRecordInputs,
  ServiceDomainInputs,
  RouteInputs,
  VerificationInputs,
} from "../inputs";
export { CLOUDFLARE_SETTINGS, CONNECTION_SETTINGS } from "./connection-settings";
