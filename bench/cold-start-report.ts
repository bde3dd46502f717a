import type { ColdStartFigures } from "./cold-start";
import { median } from "./setup";
import { table } from "./table";

/** The most a provider process's load + first call may take, as a multiple of got's. */
export const COLD_START_GOT_TARGET = 1.25;

/** The cold-start table: load and first call per mode, each against node:http and got. */
export function formatColdStart(runs: ColdStartFigures[]): string[] {
  if (runs.length === 0) return [];
  const ms = (value: number) => value.toFixed(1);
  const floor = runs.find((run) => run.mode === "node:http");
  const viaGot = runs.find((run) => run.mode === "got");
  const ratio = (run: ColdStartFigures, base?: ColdStartFigures) =>
    base ? `${(run.totalMedianMs / base.totalMedianMs).toFixed(2)}×` : "-";
  return [
    "",
    "Cold start: a fresh Node process per sample (as each Pulumi command starts a fresh provider process), plain",
    "node in the installed project; load the client, then one first request (the provider: configure + a domain",
    `read = one domains/list). Medians in ms. Target: the providers' load + first call ≤ ${COLD_START_GOT_TARGET}× got's. SDK:`,
    "require of @pulumi/pulumi, which the provider host has loaded before any provider (in the second row, outside",
    "load and first call).",
    table(
      [
        "mode",
        "samples",
        "node start",
        "SDK",
        "load",
        "first call",
        "load + first call",
        "÷ node:http",
        "÷ got",
        "process (spawn to exit)",
        `≤ ${COLD_START_GOT_TARGET}× got`,
      ],
      runs.map((run) => [
        run.mode,
        String(run.samples.length),
        ms(median(run.samples.map((s) => s.bootMs))),
        run.sdkMedianMs ? ms(run.sdkMedianMs) : "-",
        ms(run.loadMedianMs),
        ms(run.firstCallMedianMs),
        ms(run.totalMedianMs),
        ratio(run, floor),
        ratio(run, viaGot),
        ms(run.processMedianMs),
        !run.mode.startsWith("provider") || !viaGot
          ? ""
          : run.totalMedianMs <= COLD_START_GOT_TARGET * viaGot.totalMedianMs
            ? "ok"
            : "MISSED",
      ]),
    ),
  ];
}
