import type * as PulumiLog from "@pulumi/pulumi/log";

/**
 * Pulumi's log (`@pulumi/pulumi/log`: the lines the CLI shows under a resource), loaded when a
 * provider first writes one. The module loads the SDK's runtime (gRPC, protobuf, OpenTelemetry,
 * semver), which the providers need for nothing else: a provider process that writes no line,
 * the common case, never loads it.
 */
type Log = Pick<typeof PulumiLog, "debug" | "info" | "warn">;

let loaded: Log | undefined;
function pulumiLog(): Log {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require("@pulumi/pulumi/log") as Log);
}

export const log: Log = {
  debug: (...line) => pulumiLog().debug(...line),
  info: (...line) => pulumiLog().info(...line),
  warn: (...line) => pulumiLog().warn(...line),
};
