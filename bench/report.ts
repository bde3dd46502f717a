import * as fs from "node:fs/promises";
import * as path from "node:path";
import { lineChart } from "./chart";
import { isIdeal, LifecycleResult, listsPerKind, StepResult } from "./lifecycle";
import type { MemoryPeak } from "./memory";
import type { OverheadFigures } from "./overhead";
import type { ProviderTextFigures } from "./provider-text";
import type { RateLimitedFigures } from "./rate-limit";
import type { StateSizeFigures } from "./state-size";
import { total } from "./setup";
import type { VerificationFigures } from "./verification";

export interface BenchResults {
  generatedAt: string;
  machine: { node: string; platform: string; cpus: number; cpuModel: string };
  durationMs: number;
  lifecycle: LifecycleResult[];
  /** The process running the providers (and, in-process, the emulator) during the N = 1000 lifecycle. */
  memory?: MemoryPeak & { routes: number };
  overhead: OverheadFigures[];
  verification: VerificationFigures[];
  /** Routes created at once against a rate-limited service, then the same without a limit. */
  rateLimited?: RateLimitedFigures[];
  providerTexts: ProviderTextFigures[];
  stateSize: StateSizeFigures[];
}

export const TARGETS = {
  refreshListsPerKind: 2,
  overheadRatio: 1.25,
  rateLimitedRequestsRatio: 1.25,
  rateLimitedTimeRatio: 1.2,
};

/** Plain-text tables of every figure. */
export function formatReport(results: BenchResults): string {
  const out: string[] = [];
  out.push(
    `bench: ${results.generatedAt}, node ${results.machine.node}, ${results.machine.cpus} × ${results.machine.cpuModel}, ` +
      `${(results.durationMs / 1000).toFixed(1)} s`,
    "",
    "Requests per lifecycle step (email API request log; ideal: one write per change, one list per kind per refresh)",
  );
  const rows: string[][] = [];
  for (const run of results.lifecycle) {
    for (const step of run.steps) {
      rows.push([
        String(run.routes),
        String(run.domains),
        step.step,
        String(total(step.requests)),
        String(total(step.ideal)),
        verdict(step),
        describeCounts(step.requests),
        Number.isNaN(step.retries) ? "-" : String(step.retries),
        `${(step.ms / 1000).toFixed(2)} s`,
      ]);
    }
  }
  out.push(
    table(["N", "domains", "step", "requests", "ideal", "verdict", "per endpoint", "retries", "time"], rows),
    "",
    `Overhead: provider call vs raw got call of the same request (sequential, median; target ratio ≤ ${TARGETS.overheadRatio})`,
    table(
      ["operation", "samples", "provider ms", "raw ms", "ratio", "provider p90", "raw p90", "verdict"],
      results.overhead.map((o) => [
        o.operation,
        String(o.samples),
        o.providerMedianMs.toFixed(3),
        o.rawMedianMs.toFixed(3),
        o.ratio.toFixed(2),
        o.providerP90Ms.toFixed(3),
        o.rawP90Ms.toFixed(3),
        o.ratio <= TARGETS.overheadRatio ? "ok" : "MISSED",
      ]),
    ),
    ...rateLimitedReport(results.rateLimited ?? []),
    "",
    "Verification: records valid T s after create starts (target: delay ≤ poll cap, ≤ 1 check request per poll)",
    table(
      [
        "T",
        "poll interval",
        "poll cap",
        "valid at",
        "returned at",
        "delay",
        "last pause",
        "polls",
        "check requests",
        "verdict",
      ],
      results.verification.map((v) => [
        `${v.validAfterSeconds} s`,
        `${v.pollIntervalSeconds} s`,
        `${v.pollCapMs / 1000} s`,
        `${(v.validAtMs / 1000).toFixed(2)} s`,
        `${(v.returnedAtMs / 1000).toFixed(2)} s`,
        `${(v.delayMs / 1000).toFixed(2)} s`,
        `${(v.lastIntervalMs / 1000).toFixed(2)} s`,
        String(v.polls),
        String(v.checkRequests),
        v.verified && v.delayMs <= v.pollCapMs && v.checkRequests <= v.polls ? "ok" : "MISSED",
      ]),
    ),
    "",
    "Provider text each resource stores (__provider): this package's loader, and the code serialized by value as",
    "pulumi.dynamic.Resource stored it before (any install not under node_modules); load time in the real provider",
    "host, types in this order (the first loader loads the installed package; each by-value text is its own copy)",
    table(
      ["resource", "form", "text bytes", "in state per resource", "load ms (median)", "load ms (each host)"],
      results.providerTexts.map((t) => [
        t.type,
        t.form,
        String(t.textBytes),
        kib(t.storedBytes),
        t.loadMedianMs.toFixed(1),
        t.loadMs.map((ms) => ms.toFixed(1)).join(", "),
      ]),
    ),
    "",
    "State of the dynamic resources for N domains like the basic example (domain, verification, 2 routes each;",
    "inputs + outputs as stored, computed from one such domain's measured resources × N)",
    table(
      [
        "domains",
        "dynamic resources",
        "state (loader)",
        "of it provider text",
        "state (by value)",
        "of it provider text",
        "by value / loader",
      ],
      results.stateSize.map((s) => [
        String(s.domains),
        String(s.dynamicResources),
        kib(s.bytes.loader.state),
        kib(s.bytes.loader.providerText),
        kib(s.bytes["by value"].state),
        kib(s.bytes["by value"].providerText),
        `${(s.bytes["by value"].state / s.bytes.loader.state).toFixed(1)}×`,
      ]),
    ),
  );
  if (results.memory) {
    const m = results.memory;
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    out.push(
      "",
      `Memory of the process running the providers (and the in-process emulator), N = ${m.routes} lifecycle`,
      table(
        ["", "RSS", "heap used", "heap total"],
        [
          ["before", mb(m.baselineRssBytes), mb(m.baselineHeapUsedBytes), "-"],
          ["peak", mb(m.peakRssBytes), mb(m.peakHeapUsedBytes), mb(m.peakHeapTotalBytes)],
        ],
      ),
    );
  }
  return out.join("\n") + "\n";
}

function rateLimitedReport(runs: RateLimitedFigures[]): string[] {
  if (runs.length === 0) return [];
  const { rateLimitedRequestsRatio: requestsTarget, rateLimitedTimeRatio: timeTarget } = TARGETS;
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

function kib(bytes: number): string {
  return bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function verdict(step: StepResult): string {
  if (step.step.startsWith("refresh")) {
    const lists = listsPerKind(step);
    const worst = Math.max(lists.domains, lists.routes);
    return worst <= TARGETS.refreshListsPerKind ? (isIdeal(step) ? "ideal" : "ok") : "MISSED";
  }
  return isIdeal(step) ? "ideal" : "not ideal";
}

function describeCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([endpoint, count]) => `${endpoint} ${count}`)
    .join(", ");
}

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** Lists (both kinds) per refresh against N, measured and ideal. */
export function refreshChart(results: BenchResults): string {
  const runs = results.lifecycle;
  const lists = (name: string) =>
    runs.map((run) => {
      const step = run.steps.find((s) => s.step === name);
      if (!step) return NaN;
      const { domains, routes } = listsPerKind(step);
      return domains + routes;
    });
  const series = [
    { name: "in process (burst)", values: lists("refresh"), color: "#1f77b4" },
    { name: "through the host (gRPC)", values: lists("refresh (host)"), color: "#d62728" },
    { name: "ideal (1 per kind)", values: runs.map(() => 2), color: "#2ca02c", dashed: true },
    {
      name: `target (≤ ${TARGETS.refreshListsPerKind} per kind)`,
      values: runs.map(() => 2 * TARGETS.refreshListsPerKind),
      color: "#999",
      dashed: true,
    },
  ].filter((s) => s.values.every(Number.isFinite));
  return lineChart({
    title: "List requests per refresh (domains/list + routes/list)",
    xLabel: "N routes (on N/10 domains)",
    yLabel: "requests per refresh",
    categories: runs.map((run) => String(run.routes)),
    series,
  });
}

export async function writeResults(folder: string, results: BenchResults): Promise<string[]> {
  await fs.mkdir(folder, { recursive: true });
  const json = path.join(folder, "latest.json");
  const svg = path.join(folder, "refresh-requests.svg");
  await fs.writeFile(json, JSON.stringify(results, null, 2) + "\n");
  await fs.writeFile(svg, refreshChart(results));
  return [json, svg];
}
