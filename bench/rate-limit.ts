import type { RateLimit } from "../emulator/http/rate-limit";
import { forgetRateLimits, forgetSharedLists } from "../provider/client/process-runtime";
import { setClientDefaults } from "../provider/dynamic/connection";
import { configureForUrl } from "../tests/support/providers";
import type { BenchEmulator } from "./emulator-process";
import { createOne } from "./lifecycle";
import { BenchProviders, since } from "./setup";

/** Many routes created at once against a service with a server-wide rate limit (or none). */
export interface RateLimitedFigures {
  routes: number;
  /** The email API's limit during the creates; undefined: none. */
  limit?: RateLimit;
  /** Requests the email API received, 429s included. */
  requests: number;
  /** Of them, refused with 429. */
  throttled: number;
  /** Per endpoint, 429s included. */
  perEndpoint: Record<string, number>;
  /**
   * One create per route plus every other request the service accepted (the lists the provider
   * sends anyway): what a client that never meets the limit would send.
   */
  idealRequests: number;
  /** Creates that failed (the provider call threw). */
  failures: number;
  /** Routes the service made (its request log's creates that made one), of those asked for. */
  created: number;
  ms: number;
  /** The limit's own floor: all ideal requests, the first `burst` at once, the rest at its rate. */
  idealMs?: number;
}

export interface RateLimitedOptions {
  routes: number;
  limit?: RateLimit;
  providers: BenchProviders;
}

/**
 * Creates `routes` routes on one domain through `routeProvider` (check, then create, all at once,
 * as the provider host receives them from an engine with no parallelism cap), with the client's
 * default retry policy, what was learned of rate limits forgotten first (a fresh provider host).
 * The domain is made before the limit is set; the limit starts with a full bucket. Requests are
 * counted from the emulator's request log.
 */
export async function measureRateLimited(
  emulator: BenchEmulator,
  options: RateLimitedOptions,
): Promise<RateLimitedFigures> {
  const { domainProvider, routeProvider } = options.providers;
  await configureForUrl(emulator.emailApi.url, [domainProvider, routeProvider], emulator.emailApi.apiKey);
  setClientDefaults({}); // the default retry policy, as users get it
  forgetRateLimits();
  forgetSharedLists();
  const name = `rate-${options.routes}-${process.pid}-${Date.now().toString(36)}.example.com`;
  const domain = await createOne(domainProvider, { name });
  const endpointId = emulator.endpointId;
  const domainId = Number(domain.id);

  await emulator.requests.clear();
  await emulator.setRateLimit(options.limit);
  const start = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: options.routes }, (_, i) =>
      createOne(routeProvider, { name: `route${i}`, domainId, endpointId }),
    ),
  );
  const ms = since(start);
  await emulator.setRateLimit(undefined);

  const entries = (await emulator.requests.all()).filter((entry) => entry.service === "email-api");
  const perEndpoint: Record<string, number> = {};
  for (const entry of entries) perEndpoint[entry.endpoint] = (perEndpoint[entry.endpoint] ?? 0) + 1;
  const throttled = entries.filter((entry) => entry.status === 429).length;
  const otherAccepted = entries.filter(
    (entry) => entry.status !== 429 && entry.endpoint !== "routes/create",
  ).length;
  const idealRequests = options.routes + otherAccepted;
  const created = entries.filter((entry) => entry.effect?.created?.kind === "route").length;

  await domainProvider.delete!(domain.id, domain.state); // takes its routes
  return {
    routes: options.routes,
    limit: options.limit,
    requests: entries.length,
    throttled,
    perEndpoint,
    idealRequests,
    failures: outcomes.filter((outcome) => outcome.status === "rejected").length,
    created,
    ms,
    idealMs:
      options.limit &&
      (Math.max(0, idealRequests - options.limit.burst) / options.limit.requestsPerSecond) * 1000,
  };
}
