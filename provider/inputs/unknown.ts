/**
 * The value Pulumi sends for an input that is not known yet (during preview, e.g. a Route's
 * `domainId` when the Domain is created in the same run). It may stand for a whole object or for
 * one element of an array.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/** True when the value or anything inside it is unknown. */
export function containsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (typeof value === "object" && value !== null) return Object.values(value).some(containsUnknown);
  return false;
}
