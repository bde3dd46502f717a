import { ServiceResponse } from "../http/service";

/** One item of `errors`: Cloudflare wraps validation failures in an `error_chain`. */
export interface ApiMessage {
  code: number;
  message: string;
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
 * A failed call, thrown by validators and handlers and turned into the envelope by the service.
 * The provider's SDK decides on the HTTP status, not on `success`, so both must be right.
 */
export class CloudflareApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ApiMessage[],
  ) {
    super(errors.map((error) => `${error.code} ${error.message}`).join("; "));
  }
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
