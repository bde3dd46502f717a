import * as fs from "node:fs/promises";
import * as path from "node:path";
import { lineChart } from "./chart";
import type { ColdStartFigures } from "./cold-start";
import { formatColdStart } from "./cold-start-report";
import { DnsFirstFigures, formatDnsFirst } from "./dns-first";
import { type DoctorStartFigures, formatDoctorStart } from "./doctor-start";
import { isIdeal, LifecycleResult, listsPerKind, listsSaved, StepResult } from "./lifecycle";
import type { MemoryPeak } from "./memory";
import { OVERHEAD_TARGETS, OverheadFigures } from "./overhead";
import { formatPolicyScale, PolicyScaleFigures } from "./policy-scale";
import type { ProviderTextFigures } from "./provider-text";
import type { RateLimitedFigures } from "./rate-limit";
import { formatRateLimited } from "./rate-limit-report";
import type { StateSizeFigures } from "./state-size";
import { total } from "./setup";
import { table } from "./table";
import type { VerificationFigures } from "./verification";
import type { ZoneScaleResult } from "./zone-scale";
import { formatAccountLimit, formatZoneScale } from "./zone-scale-report";

export interface BenchResults {
  generatedAt: string;
  /** The command line, for the README. */
  command?: string;
  /** The machine's load average (1, 5, 15 min) when the run ended: other work shares the cores. */
  loadAverage?: number[];
  machine: { node: string; platform: string; cpus: number; cpuModel: string };
  durationMs: number;
  lifecycle: LifecycleResult[];
  /** The bench process running the providers (the emulator runs in its own) during the largest lifecycle. */
  memory?: MemoryPeak & { routes: number };
  overhead: OverheadFigures[];
  coldStart?: ColdStartFigures[];
  /** The doctor command's start to exit, bundled and not (bench/doctor-start.ts). */
  doctorStart?: DoctorStartFigures[];
  verification: VerificationFigures[];
  /** Routes created at once against a rate-limited service, then the same without a limit. */
  rateLimited?: RateLimitedFigures[];
  providerTexts: ProviderTextFigures[];
  stateSize: StateSizeFigures[];
  /** N domains in one zone through the test kit (bench/zone-scale.ts). */
  zoneScale?: ZoneScaleResult[];
  /** Service checks per verified domain, DNS-first against service-only (bench/dns-first.ts). */
  dnsFirst?: DnsFirstFigures[];
  /** The policy pack over N domains against the same calls with no policy (bench/policy-scale.ts). */
  policyScale?: PolicyScaleFigures[];
}

export const TARGETS = {
  refreshListsPerKind: 2,
  overheadRatioNodeHttp: OVERHEAD_TARGETS.nodeHttp,
  overheadRatioGot: OVERHEAD_TARGETS.got,
};

/** Plain-text tables of every figure. */
export function formatReport(results: BenchResults): string {
  const out: string[] = [];
  out.push(
    `bench: ${results.generatedAt}, node ${results.machine.node}, ${results.machine.cpus} × ${results.machine.cpuModel}, ` +
      `${(results.durationMs / 1000).toFixed(1)} s` +
      (results.loadAverage ? `, load average ${results.loadAverage.map((l) => l.toFixed(2)).join(" ")}` : ""),
    ...(results.command ? [`command: ${results.command}`] : []),
    "",
    "Requests per lifecycle step, from the emulator's request log: the email API's and the Cloudflare stand-in's",
    "(`cloudflare:`; each domain's records, sent by the bench as the Cloudflare provider would, one request per record",
    "and step). Each domain as the Domain component makes it: records, then a verification (default poll settings,",
    "records already valid). Ideal: one write per change, per refresh one list per kind, one check per verification",
    `and one read per record. Target: refresh ≤ ${TARGETS.refreshListsPerKind} lists per kind and the rest ideal; other steps = ideal.`,
  );
  const rows: string[][] = [];
  for (const run of results.lifecycle) {
    for (const step of run.steps) {
      const cloudflare = Object.entries(step.requests)
        .filter(([endpoint]) => endpoint.startsWith("cloudflare:"))
        .reduce((sum, [, count]) => sum + count, 0);
      rows.push([
        String(run.routes),
        String(run.domains),
        step.step,
        String(total(step.requests)),
        String(total(step.requests) - cloudflare),
        String(cloudflare),
        String(total(step.ideal)),
        verdict(step),
        describeCounts(step.requests),
        Number.isNaN(step.retries) ? "-" : String(step.retries),
        `${(step.ms / 1000).toFixed(2)} s`,
      ]);
    }
  }
  out.push(
    table(
      [
        "N",
        "domains",
        "step",
        "requests",
        "email API",
        "Cloudflare",
        "ideal",
        "verdict",
        "per endpoint",
        "retries",
        "time",
      ],
      rows,
    ),
    "",
    "Lists reused within a refresh: a read after the first of its kind reuses the list (a cache hit, no request);",
    "counted, not timed, no target. Unshared: a domain read lists domains, a route read lists routes and domains.",
    table(
      ["N", "step", "domain + route reads", "lists if unshared", "lists sent", "saved"],
      results.lifecycle.flatMap((run) =>
        run.steps
          .filter((step) => step.step.startsWith("refresh"))
          .map((step) => {
            const { unshared, sent } = listsSaved(step, run.domains, run.routes);
            return [
              String(run.routes),
              step.step,
              String(run.domains + run.routes),
              String(unshared),
              String(sent),
              String(unshared - sent),
            ];
          }),
      ),
    ),
    "",
    "Warm calls: a provider call against the same request sent with got and with plain node:http (same URL, body,",
    "headers and keep-alive agent; emulator in its own process; sequential, rotating order; medians in ms).",
    `Targets: provider ≤ ${TARGETS.overheadRatioNodeHttp}× node:http, provider ≤ ${TARGETS.overheadRatioGot}× got.`,
    table(
      [
        "operation",
        "samples",
        "provider",
        "got",
        "node:http",
        "extra vs node:http",
        "÷ node:http",
        `verdict (≤ ${TARGETS.overheadRatioNodeHttp}×)`,
        "÷ got",
        `verdict (≤ ${TARGETS.overheadRatioGot}×)`,
      ],
      results.overhead.map((o) => [
        o.operation,
        String(o.samples),
        o.provider.medianMs.toFixed(3),
        o.got.medianMs.toFixed(3),
        o.nodeHttp.medianMs.toFixed(3),
        `${(o.provider.medianMs - o.nodeHttp.medianMs).toFixed(3)} ms`,
        o.ratioNodeHttp.toFixed(2),
        o.ratioNodeHttp <= TARGETS.overheadRatioNodeHttp ? "ok" : "MISSED",
        o.ratioGot.toFixed(2),
        o.ratioGot <= TARGETS.overheadRatioGot ? "ok" : "MISSED",
      ]),
    ),
    ...formatColdStart(results.coldStart ?? []),
    ...formatDoctorStart(results.doctorStart ?? []),
    ...formatRateLimited(results.rateLimited ?? []),
    "",
    "Verification: default poll settings, records valid T s after the create starts (T = 0: before it), each in a",
    "fresh process against an emulator process of its own, all at once, in real time (no fake clock). Requests:",
    "domains/check, other email API requests (the domains/list naming the domain in progress lines), and the",
    "Cloudflare stand-in's (the records' creates). Target: delay ≤ poll cap, ≤ 1 check request per poll.",
    table(
      [
        "T",
        "clock",
        "poll interval",
        "poll cap",
        "valid at",
        "returned at",
        "delay",
        "polls",
        "checks",
        "other email API",
        "Cloudflare",
        "verdict",
      ],
      results.verification.map((v) => [
        `${v.validAfterSeconds} s`,
        v.clock,
        `${v.pollIntervalSeconds} s`,
        `${v.pollCapMs / 1000} s`,
        `${(v.validAtMs / 1000).toFixed(2)} s`,
        `${(v.returnedAtMs / 1000).toFixed(2)} s`,
        `${(v.delayMs / 1000).toFixed(2)} s`,
        String(v.polls),
        String(v.checkRequests),
        describeCounts(v.otherRequests) || "0",
        String(v.recordRequests),
        v.verified && v.delayMs <= v.pollCapMs && v.checkRequests <= v.polls ? "ok" : "MISSED",
      ]),
    ),
    "",
    "Provider text each resource stores (__provider): this package's loader; load time in the real provider host,",
    "types in this order (the first loads the installed package)",
    table(
      ["resource", "text bytes", "in state per resource", "load ms (median)", "load ms (each host)"],
      results.providerTexts.map((t) => [
        t.type,
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
      ["domains", "dynamic resources", "state", "of it provider text"],
      results.stateSize.map((s) => [
        String(s.domains),
        String(s.dynamicResources),
        kib(s.bytes.state),
        kib(s.bytes.providerText),
      ]),
    ),
  );
  if (results.memory) {
    const m = results.memory;
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    out.push(
      "",
      `Memory of the bench process running the providers (the emulator runs in its own), N = ${m.routes} lifecycle`,
      table(
        ["", "RSS", "heap used", "heap total"],
        [
          ["before", mb(m.baselineRssBytes), mb(m.baselineHeapUsedBytes), "-"],
          ["peak", mb(m.peakRssBytes), mb(m.peakHeapUsedBytes), mb(m.peakHeapTotalBytes)],
        ],
      ),
    );
  }
  if (results.zoneScale)
    out.push(...formatZoneScale(results.zoneScale), ...formatAccountLimit(results.zoneScale));
  if (results.dnsFirst) out.push(...formatDnsFirst(results.dnsFirst));
  if (results.policyScale) out.push(...formatPolicyScale(results.policyScale));
  return out.join("\n") + "\n";
}

function kib(bytes: number): string {
  return bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(2)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/**
 * A refresh meets its target with at most 2 lists per kind and every other request as ideal (one
 * check per verification, one read per record, nothing else); other steps must be ideal.
 */
export function verdict(step: StepResult): string {
  if (isIdeal(step)) return "ideal";
  if (!step.step.startsWith("refresh")) return "MISSED";
  const lists = listsPerKind(step);
  const rest = (counts: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(counts).filter(([key]) => key !== "domains/list" && key !== "routes/list"),
    );
  const othersIdeal = isIdeal({ ...step, requests: rest(step.requests), ideal: rest(step.ideal) });
  return Math.max(lists.domains, lists.routes) <= TARGETS.refreshListsPerKind && othersIdeal
    ? "ok"
    : "MISSED";
}

function describeCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([endpoint, count]) => `${endpoint} ${count}`)
    .join(", ");
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
