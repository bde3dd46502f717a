/**
 * What Pulumi stores as each dynamic resource's provider (`__provider`): a small loader, not the
 * provider's code. The Node.js dynamic-provider host evaluates the text and calls `handler()`;
 * the loader then requires this package by name from the folder the engine starts the host in
 * (the program's folder, from which the host's own `@pulumi/pulumi` is resolved too) and returns
 * one of its providers.
 *
 * So the text is the same for every install (registry, tarball, git, local path), holds
 * no key and no path of the machine that ran `up`, and a newer installed version runs old state.
 *
 * The contract every stored text relies on, public API that never changes:
 * - the module `pulumi-email-delivery/providers` (package.json "exports") exports
 *   `domainProvider`, `routeProvider`, `verificationProvider` and `claimedRecordProvider`;
 * - each accepts every state and input shape any earlier version stored.
 * Texts of this version are kept as fixtures (`tests/fixtures/stored-state/`) and must keep working.
 */

/** The package name the loader requires (package.json "name"). */
export const PACKAGE_NAME = "pulumi-email-delivery";

/** The entry point stored texts load. Never rename it, never drop it from "exports". */
export const PROVIDERS_ENTRY_POINT = `${PACKAGE_NAME}/providers`;

/** The providers a stored text can name, with the resource type each runs (for messages). */
export const STORED_PROVIDERS = {
  domainProvider: "email-delivery:Domain",
  routeProvider: "email-delivery:Route",
  verificationProvider: "email-delivery:DomainVerification",
  claimedRecordProvider: "email-delivery:ClaimedDnsRecord",
} as const;

export type StoredProviderName = keyof typeof STORED_PROVIDERS;

/** First line of every loader text, whatever its version. */
const LOADER_MARKER = `// ${PACKAGE_NAME} provider loader v`;

/** Bumped only if the text must change; every earlier version must keep working as it is. */
const LOADER_VERSION = 1;

/** The `__provider` text of a resource run by `provider`. */
export function providerLoaderText(provider: StoredProviderName): string {
  const type = STORED_PROVIDERS[provider];
  const entry = JSON.stringify(PROVIDERS_ENTRY_POINT);
  const notFound = JSON.stringify(`'${PROVIDERS_ENTRY_POINT}'`); // as Node quotes it in "Cannot find module"
  return `${LOADER_MARKER}${LOADER_VERSION}: ${provider} (${type}).
// Loads the provider from the package installed in the Pulumi project, so state always runs the
// installed version. The entry point and the name it loads are the package's public API.
exports.handler = function () {
  var project = "the project folder";
  var provider;
  var tooOld = "it is older than the version that wrote the state. Install a newer version in the Pulumi project.";
  try {
    project = process.cwd();
    // From the folder Pulumi starts this process in, as the provider host itself was found
    // (createRequire also lets the package's own folder load it by name).
    provider = require("node:module").createRequire(project + "/")(${entry}).${provider};
  } catch (error) {
    var code = error && error.code;
    var message = String(error && error.message);
    var missing = code === "MODULE_NOT_FOUND" && message.indexOf(${notFound}) >= 0;
    throw new Error("This stack's ${type} resources are run by the package ${PACKAGE_NAME}, " +
      "which could not be loaded from " + project + ": " + message.split("\\n")[0] +
      (missing ? " Install it in the Pulumi project (npm install ${PACKAGE_NAME}) and run the command again." :
      code === "ERR_PACKAGE_PATH_NOT_EXPORTED" ? " The installed version has no entry point for stored state: " + tooOld : ""),
      { cause: error });
  }
  if (!provider) {
    throw new Error("The installed ${PACKAGE_NAME} has no ${provider}, which this stack's state needs: " + tooOld);
  }
  return provider;
};
`;
}

/** Whether `text` is a loader (of any version) rather than a serialized provider. */
export function isProviderLoader(text: unknown): boolean {
  return typeof text === "string" && text.startsWith(LOADER_MARKER);
}

/**
 * Whether a resource's stored provider is one serialized by a build before the loader, which
 * `read` and `delete` would keep running: the next `up` must rewrite it (an update that changes
 * nothing on the service). Only when the program now stores a loader, as this package's resources
 * do: the package's code is not serializable, so a loader is the only text it can store now.
 */
export function storedProviderOutdated(
  olds: { __provider?: unknown },
  news: { __provider?: unknown },
): boolean {
  return (
    isProviderLoader(news.__provider) && olds.__provider !== undefined && !isProviderLoader(olds.__provider)
  );
}
