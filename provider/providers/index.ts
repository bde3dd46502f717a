export * from "./claimed-record-provider";
export * from "./domain-provider";
export * from "./route-provider";
export { verificationProvider, type VerificationOutputs } from "./verification-provider";
export { CLOUDFLARE_SETTINGS, CONNECTION_SETTINGS } from "./connection";
