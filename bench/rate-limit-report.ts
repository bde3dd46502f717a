import type { RateLimitedFigures } from "./rate-limit";
import { table } from "./table";

/** Requests and time against the ideal, for routes created at once against a rate-limited service. */
export const RATE_LIMIT_TARGETS = { requests: 1.25, time: 1.2 };

/** The rate-limit table: each run against its ideal and the targets. */
export function formatRateLimited(runs: RateLimitedFigures[]): string[] {
  if (runs.length === 0) return [];
  const { requests: requestsTarget, time: timeTarget } = RATE_LIMIT_TARGETS;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return [
    "",
    "Routes created at once (check + create each) against a server-wide rate limit, then without one; ideal: one",
    "create per route plus the lists the service accepted, the first `burst` at once and the rest at the limit's",
    `rate (target: no failures, requests ≤ ${requestsTarget}× ideal, time ≤ ${timeTarget}× ideal)`,
    table(
      [
        "routes",
        "limit",
        "requests",
        "ideal",
        "ratio",
        "429s",
        "failures",
        "time",
        "ideal time",
        "ratio",
        "verdict",
      ],
      runs.map((run) => {
        const requestsRatio = run.requests / run.idealRequests;
        const timeRatio = run.idealMs ? run.ms / run.idealMs : undefined;
        const met =
          run.failures === 0 &&
          requestsRatio <= requestsTarget &&
          (timeRatio === undefined || timeRatio <= timeTarget);
        return [
          String(run.routes),
          run.limit ? `${run.limit.requestsPerSecond}/s, burst ${run.limit.burst}` : "none",
          String(run.requests),
          String(run.idealRequests),
          requestsRatio.toFixed(2),
          String(run.throttled),
          String(run.failures),
          seconds(run.ms),
          run.idealMs === undefined ? "-" : seconds(run.idealMs),
          timeRatio === undefined ? "-" : timeRatio.toFixed(2),
          met ? "ok" : "MISSED",
        ];
      }),
    ),
  ];
}
