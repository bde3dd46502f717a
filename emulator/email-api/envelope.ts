import { ServiceResponse } from "../http/service";

/**
 * Postal's legacy API answers every rendered result with HTTP 200 and this envelope; the outcome
 * is in `status`. Anything Rails answers outside a controller (bad JSON, unknown path, crash) is
 * a short HTML page with a real HTTP status instead.
 */
export type EnvelopeStatus = "success" | "error" | "parameter-error";

export interface Envelope {
  status: EnvelopeStatus;
  /** Seconds spent on the request, rounded to 3 decimal places. */
  time: number;
  flags: Record<string, never>;
  data: unknown;
}

/** Starts the clock for `time`, like the base controller's `start_timer`. */
export function startTimer(): () => number {
  const started = performance.now();
  return () => Math.round(performance.now() - started) / 1000;
}

export function envelope(status: EnvelopeStatus, data: unknown, elapsed: () => number): ServiceResponse {
  const body: Envelope = { status, time: elapsed(), flags: {}, data };
  return {
    status: 200,
    headers: { "Content-Type": "application/json; charset=utf-8" },
    body: JSON.stringify(body),
  };
}

export function htmlResponse(status: number, text: string): ServiceResponse {
  return { status, headers: { "Content-Type": "text/html; charset=utf-8" }, body: text };
}

export function plainResponse(status: number, text: string): ServiceResponse {
  return { status, headers: { "Content-Type": "text/plain; charset=utf-8" }, body: text };
}
