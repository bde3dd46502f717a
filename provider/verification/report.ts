import type { DomainCheck } from "../client";
import type { CheckName } from "../inputs";

/** How each check appears to a person, and where its status and error are in a check result. */
export const CHECKS: Record<
  CheckName,
  { label: string; status: keyof DomainCheck; error: keyof DomainCheck }
> = {
  spf: { label: "SPF", status: "spfStatus", error: "spfError" },
  dkim: { label: "DKIM", status: "dkimStatus", error: "dkimError" },
  mx: { label: "MX", status: "mxStatus", error: "mxError" },
  returnPath: { label: "Return path", status: "returnPathStatus", error: "returnPathError" },
};

/** The requested checks that are not OK yet. */
export function failingChecks(result: DomainCheck, checks: readonly CheckName[]): CheckName[] {
  return checks.filter((check) => result[CHECKS[check].status] !== "OK");
}

/** `DKIM (Invalid), MX (Missing)`: what a progress line says is still failing. */
export function describeFailing(result: DomainCheck, checks: readonly CheckName[]): string {
  return failingChecks(result, checks)
    .map((check) => `${CHECKS[check].label} (${result[CHECKS[check].status] ?? "not checked"})`)
    .join(", ");
}

/**
 * A table of every requested check: its status and the service's error text, e.g.
 *
 *   check        status    service says
 *   SPF          OK
 *   DKIM         Invalid   The DKIM record at postal-ABCDEF._domainkey.… does not match …
 */
export function checkTable(result: DomainCheck, checks: readonly CheckName[]): string {
  const rows = checks.map((check) => [
    CHECKS[check].label,
    String(result[CHECKS[check].status] ?? "not checked"),
    String(result[CHECKS[check].error] ?? ""),
  ]);
  const header = ["check", "status", "service says"];
  const widths = [0, 1].map((column) =>
    Math.max(header[column].length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    `  ${cells[0].padEnd(widths[0])}   ${cells[1].padEnd(widths[1])}   ${cells[2]}`.trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

/** `4m05s`, `12s`: time left, for progress lines. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${String(seconds % 60).padStart(2, "0")}s` : `${seconds}s`;
}
