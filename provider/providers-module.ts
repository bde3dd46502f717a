/**
 * The providers every stored `__provider` text loads, as one module: what the build bundles
 * (packaging/bundles.js) and `providers-entry.ts` serves as `pulumi-email-delivery/providers`.
 */
export { claimedRecordProvider, domainProvider, routeProvider, verificationProvider } from "./dynamic";
