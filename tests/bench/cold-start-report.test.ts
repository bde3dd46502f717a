import type { ColdMode } from "../../bench/cold-start";
import { summarizeCold } from "../../bench/cold-start";
import { formatColdStart } from "../../bench/cold-start-report";

/** The cold-start table: each mode against got, and the providers' verdict against the target. */
describe("bench: cold start", () => {
  const run = (mode: ColdMode, loadMs: number, firstCallMs: number) =>
    summarizeCold(mode, [{ bootMs: 40, sdkMs: 0, loadMs, firstCallMs, processMs: 300 }]);

  it("marks the providers ok within 1.25× got's load + first call, MISSED past it", () => {
    const lines = formatColdStart([
      run("provider", 100, 110), // 210 against 200: 1.05×
      run("provider, SDK loaded first", 150, 110), // 260: 1.30×
      run("got", 150, 50),
      run("node:http", 5, 15),
    ]).join("\n");
    expect(lines).toMatch(/^provider +1 .* 1\.05× +300\.0 +ok$/m);
    expect(lines).toMatch(/^provider, SDK loaded first +1 .* 1\.30× +300\.0 +MISSED$/m);
    expect(lines).toMatch(/^got +1 .* 1\.00× +300\.0 *$/m);
  });
});
