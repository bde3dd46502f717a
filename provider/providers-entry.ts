/**
 * `pulumi-email-delivery/providers`: the module every stored `__provider` text loads (see
 * `dynamic/loader.ts`). Public API for as long as any state written by this package exists:
 * these names stay, and each keeps accepting every shape earlier versions stored.
 *
 * @module pulumi-email-delivery/providers
 */
export { claimedRecordProvider, domainProvider, routeProvider, verificationProvider } from "./dynamic";
