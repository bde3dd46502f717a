import { ServiceRequest } from "../http/service";
import { ParameterError } from "./errors";
import { paramTexts } from "./messages";

/** The request's parameters: always a plain object, whatever was sent. */
export type Params = Record<string, unknown>;

export type ParamsReading =
  | { kind: "params"; params: Params }
  /** Rails refuses the request before any controller code: HTTP 400. */
  | { kind: "malformed-body" }
  /** Postal's own `JSON.parse` raises inside the action, after authentication: HTTP 500. */
  | { kind: "malformed-field"; error: Error };

/**
 * Postal's `api_params`: with a JSON content type the body is the params; otherwise a `params`
 * form field (query string or urlencoded body) may hold them as a JSON string; otherwise there
 * are none. A JSON value that is not an object gives no params.
 */
export function readParams(request: ServiceRequest): ParamsReading {
  const contentType = String(request.headers["content-type"] ?? "").toLowerCase();
  if (contentType.startsWith("application/json")) {
    if (request.body.length === 0) return { kind: "params", params: {} };
    try {
      return { kind: "params", params: asObject(JSON.parse(request.body.toString("utf8"))) };
    } catch {
      return { kind: "malformed-body" };
    }
  }

  let field = request.url.searchParams.get("params");
  if (contentType.startsWith("application/x-www-form-urlencoded")) {
    field = new URLSearchParams(request.body.toString("utf8")).get("params") ?? field;
  }
  if (field === null || isBlank(field)) return { kind: "params", params: {} };
  try {
    return { kind: "params", params: asObject(JSON.parse(field)) };
  } catch (error) {
    return { kind: "malformed-field", error: error as Error };
  }
}

function asObject(value: unknown): Params {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Params) : {};
}

/** Own properties only, so `constructor` or `__proto__` can never come from Object.prototype. */
export function param(params: Params, name: string): unknown {
  return Object.hasOwn(params, name) ? params[name] : undefined;
}

/** Rails' `blank?` for what counts as "not given": null, absent, or a whitespace-only string. */
function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

/**
 * Integers arrive as JSON integers or as strings of digits (form-encoded clients send strings).
 * They are bigints so a huge id is reported as sent ("No domain with id 99999999999999999999")
 * instead of being rounded; ids in the store are small numbers, compare with `sameId`.
 */
function toInteger(name: string, value: unknown): bigint {
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^[0-9]+$/.test(value)) return BigInt(value);
  throw new ParameterError(paramTexts.notInteger(name));
}

export function requiredInteger(params: Params, name: string): bigint {
  const value = param(params, name);
  if (isBlank(value)) throw new ParameterError(paramTexts.missing(name));
  return toInteger(name, value);
}

export function optionalInteger(params: Params, name: string): bigint | undefined {
  const value = param(params, name);
  return isBlank(value) ? undefined : toInteger(name, value);
}

export function requiredString(params: Params, name: string): string {
  const value = param(params, name);
  if (isBlank(value)) throw new ParameterError(paramTexts.missing(name));
  if (typeof value !== "string") throw new ParameterError(paramTexts.notString(name));
  return value;
}

/** Absent or null: undefined. An empty string is kept: setting `name: ""` is a validation error. */
export function optionalString(params: Params, name: string): string | undefined {
  const value = param(params, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new ParameterError(paramTexts.notString(name));
  return value;
}

export function sameId(recordId: number, id: bigint): boolean {
  return BigInt(recordId) === id;
}
