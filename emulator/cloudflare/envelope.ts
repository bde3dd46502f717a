import { ServiceResponse } from "../http/service";

/** One item of `errors`: Cloudflare wraps validation failures in an `error_chain`. */
export interface ApiMessage {
  /** Cloudflare's error code (`1004`, `9101`, …). */
  code: number;
  /** What is wrong. */
  message: string;
  /** The errors underneath it, for a validation error. */
  error_chain?: ApiMessage[];
}

export interface ResultInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages: number;
}

/**
 * A failed call, thrown by validators and handlers and turned into the envelope by the service;
 * the emulator's seeding (`emulator.cloudflare.addRecord`, …) throws it as is. The provider's
 * SDK decides on the HTTP status, not on `success`, so both must be right. The message is each
 * error's code and text, with its `error_chain` (where a validation error says what is wrong):
 * `1004 DNS Validation Error: 9101 content is a required field.`
 */
export class CloudflareApiError extends Error {
  /** The error's name, `CloudflareApiError`. */
  override name = "CloudflareApiError";

  constructor(
    /** The HTTP status the API answers with. */
    readonly status: number,
    /** Cloudflare's `errors`: codes and messages. */
    readonly errors: ApiMessage[],
  ) {
    super(errors.map(describeApiMessage).join("; "));
  }
}

function describeApiMessage(error: ApiMessage): string {
  const own = `${error.code} ${error.message}`;
  const chain = error.error_chain ?? [];
  return chain.length === 0 ? own : `${own}: ${chain.map(describeApiMessage).join("; ")}`;
}

// Every answer is JSON: the SDK decodes the delete answer itself and needs the content type.
const JSON_HEADERS = { "Content-Type": "application/json" };

export function success(result: unknown, resultInfo?: ResultInfo, status = 200): ServiceResponse {
  const body = {
    success: true,
    errors: [],
    messages: [],
    result,
    ...(resultInfo && { result_info: resultInfo }),
  };
  return { status, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}

export function failure(status: number, errors: ApiMessage[]): ServiceResponse {
  const body = { success: false, errors, messages: [], result: null };
  return { status, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}
