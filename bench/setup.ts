import type * as pulumi from "@pulumi/pulumi";
import type { AttemptRecord } from "../provider/client";
import { setClientDefaults } from "../provider/dynamic/connection";
import { configureForUrl } from "../tests/support/providers";
import { BenchEmulator, countsOf, startEmulatorProcess } from "./emulator-process";

/**
 * The three providers the bench drives: `npm run bench` passes the installed package's
 * (bench/package.ts), tests may pass the sources'.
 */
export interface BenchProviders {
  domainProvider: pulumi.dynamic.ResourceProvider;
  routeProvider: pulumi.dynamic.ResourceProvider;
  verificationProvider: pulumi.dynamic.ResourceProvider;
}

/**
 * The emulator in a process of its own on free ports of 127.0.0.1, with 1024-bit DKIM keys
 * (creating a domain makes one; at N = 1000 there are 100). No fault rules: every request is
 * answered normally. Its own process, so its work (parsing, answering, logging) is never timed
 * as part of a provider call or of the raw request it is compared with.
 */
export function startBenchEmulator(): Promise<BenchEmulator> {
  return startEmulatorProcess(["--dkim-bits", "1024"]);
}

/**
 * Configures the providers through `configure()` as the provider host does (stack config, not
 * env), and counts the requests the clients send (retries included) through `onAttempt`.
 */
export async function configureProviders(
  emulator: BenchEmulator,
  providers: BenchProviders,
  attempts?: AttemptRecord[],
): Promise<void> {
  await configureForUrl(
    emulator.emailApi.url,
    [providers.domainProvider, providers.routeProvider, providers.verificationProvider],
    emulator.emailApi.apiKey,
  );
  // configureFor sets quick retries; keep them, and record attempts when asked. Settings live on
  // globalThis under versioned keys, so the installed package's copy of the code reads them too.
  setClientDefaults({
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    onAttempt: attempts ? (attempt) => attempts.push(attempt) : undefined,
  });
}

/**
 * Requests per endpoint the emulator logged: the email API's (`domains/list`, …) and the
 * Cloudflare stand-in's (`cloudflare:dns_records.get`, …).
 */
export async function requestCounts(emulator: BenchEmulator): Promise<Record<string, number>> {
  return countsOf(await emulator.requests.all());
}

export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

/** Milliseconds since `start` (from `performance.now()`). */
export function since(start: number): number {
  return performance.now() - start;
}

export function median(values: number[]): number {
  return percentile(values, 0.5);
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = (sorted.length - 1) * p;
  const low = Math.floor(index);
  const high = Math.ceil(index);
  return sorted[low] + (sorted[high] - sorted[low]) * (index - low);
}
