/**
 * `pulumi-email-delivery/providers`: the module every stored `__provider` text loads (see
 * `dynamic/loader.ts`). Public API for as long as any state written by this package exists:
 * these names stay, and each keeps accepting every shape earlier versions stored.
 *
 * @module pulumi-email-delivery/providers
 */
import { existsSync } from "node:fs";
import Module from "node:module";
import { join } from "node:path";
import { runWithCodeCache } from "./code-cache";
import type * as Providers from "./providers-module";

// Every Pulumi command starts a fresh provider process, which loads this before its first answer.
// The build makes the providers and all they load (got, zod and tldts; not Pulumi's SDK) one file,
// compiled here from the code cache of an earlier process: Node reads one file instead of about
// 200 and compiles almost nothing. The bundle runs in Node's own realm, so only where Node's own
// loader loads this file: a test runner's registry (jest's) loads the modules as they are, in its
// realm, with its environment and mocks. So do a build that could not bundle (no esbuild for the
// platform) and the sources.
const bundle = join(__dirname, "providers.bundle.js");
const loadedByNode = (module as unknown) instanceof Module;
const providers = (
  loadedByNode && existsSync(bundle)
    ? runWithCodeCache(bundle, { writeAfterLoad: true }).exports
    : // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only without a bundle
      require("./providers-module")
) as typeof Providers;

/** The provider of a `Domain`'s domain on the service (`email-delivery:Domain`). */
export const domainProvider: typeof Providers.domainProvider = providers.domainProvider;
/** The provider of a `Route` (`email-delivery:Route`). */
export const routeProvider: typeof Providers.routeProvider = providers.routeProvider;
/** The provider of a `DomainVerification`: the wait until the service has checked the records. */
export const verificationProvider: typeof Providers.verificationProvider = providers.verificationProvider;
/** The provider of a `ClaimedDnsRecord`: a record the zone held, taken over or merged into. */
export const claimedRecordProvider: typeof Providers.claimedRecordProvider = providers.claimedRecordProvider;
