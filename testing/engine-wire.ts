/**
 * Values as they cross the engine's gRPC boundary (`@pulumi/pulumi` `runtime/rpc`), defined once for
 * the test support that speaks it: the provider host harness and the live mocks.
 */

/** What the engine sends for a value not known yet (preview): the sentinel the providers test for. */
export { UNKNOWN } from "../provider/inputs/unknown";

/** The key marking a special value (`specialSigKey`), and its value for a secret (`specialSecretSig`). */
export const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
export const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

/** A secret as it travels over gRPC. */
export function rpcSecret(value: unknown): Record<string, unknown> {
  return { [SECRET_SIG_KEY]: SECRET_SIG, value };
}

/** Whether `value` is a secret as it travels over gRPC (its plain value is `.value`). */
export function isRpcSecret(value: unknown): value is {
  /** The secret's plain value. */
  value: unknown;
} {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[SECRET_SIG_KEY] === SECRET_SIG
  );
}
