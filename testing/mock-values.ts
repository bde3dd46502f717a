import * as pulumi from "@pulumi/pulumi";
import type { Struct as StructType } from "google-protobuf/google/protobuf/struct_pb";
import { isRpcSecret, UNKNOWN } from "./engine-wire";
import { UNKNOWN_MARKER } from "./run-types";
import { pulumiStruct } from "./pulumi-internals";

/** Values as the live mocks record them and as the provider host passes them (run-mocks.ts). */

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Strips secret wrappers and replaces unknowns, noting which paths were secret. */
export function plainValue(value: unknown, secrets: string[] = [], path = ""): unknown {
  if (pulumi.isUnknown(value)) return UNKNOWN_MARKER;
  if (Array.isArray(value)) return value.map((item, i) => plainValue(item, secrets, join(path, String(i))));
  if (isRecord(value)) {
    if (isRpcSecret(value)) {
      secrets.push(path);
      return plainValue(value.value, secrets, path);
    }
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) result[key] = plainValue(item, secrets, join(path, key));
    return result;
  }
  return value;
}
export const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** A value as the provider host receives it: secrets unwrapped, unknowns as the engine's sentinel. */
export function rpcValue(value: unknown): unknown {
  if (pulumi.isUnknown(value)) return UNKNOWN;
  if (Array.isArray(value)) return value.map(rpcValue);
  if (isRecord(value)) {
    if (isRpcSecret(value)) return rpcValue(value.value);
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rpcValue(item)]));
  }
  return value;
}

/**
 * What crosses the gRPC boundary: `Struct.fromJavaScript(x).toJavaScript()`, exactly as the host
 * converts a provider's results. It also rejects `undefined` values ("Unexpected struct type."),
 * which a real host would reject too.
 */
export function throughStruct(value: Record<string, unknown>): Record<string, unknown> {
  // google-protobuf as @pulumi/pulumi has it: a dependency of its own, not necessarily the project's.
  const Struct = pulumiStruct();
  return Struct.fromJavaScript(value as Parameters<typeof StructType.fromJavaScript>[0]).toJavaScript();
}

export const errorMessage = (error: unknown): string =>
  error instanceof Error || (isRecord(error) && typeof error.message === "string")
    ? String((error as { message: unknown }).message)
    : String(error);
