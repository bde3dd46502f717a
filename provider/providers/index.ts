export * from "./claimed-record-provider";
export type { ClaimedRecordOutputs, OriginalRecord, Ownership } from "./claimed-record-contents";
export * from "./domain-provider";
export * from "./route-provider";
export { verificationProvider, type VerificationOutputs } from "./verification-provider";
export { CLOUDFLARE_SETTINGS, CONNECTION_SETTINGS } from "./connection";
