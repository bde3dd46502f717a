import { Emulator } from "../../emulator";
import { isIdeal, listsPerKind, runLifecycle, LifecycleResult, StepResult } from "../../bench/lifecycle";
import { startBenchEmulator } from "../../bench/setup";
import { domainProvider, routeProvider, verificationProvider } from "../../provider/providers";

/**
 * The bench's lifecycle measurement (bench/lifecycle.ts) for N = 10 routes on one domain: request
 * counts only, never timings. The in-process refresh issues every read at once, as the engine
 * sends them; `npm run bench` also measures the refresh through the real provider host.
 */
describe("bench: requests per lifecycle step, N = 10", () => {
  let emulator: Emulator;
  let result: LifecycleResult;
  const step = (name: string): StepResult => result.steps.find((s) => s.step === name)!;

  beforeAll(async () => {
    emulator = await startBenchEmulator();
    // The sources' providers: this test is about the counts, `npm run bench` uses the installed package.
    const providers = { domainProvider, routeProvider, verificationProvider };
    result = await runLifecycle(emulator, { routes: 10, providers });
  });
  afterAll(async () => {
    await emulator?.stop();
  });

  it("runs create, refresh, update and delete of 10 routes on 1 domain", () => {
    expect(result).toMatchObject({ routes: 10, domains: 1 });
    expect(result.steps.map((s) => s.step)).toEqual(["create", "refresh", "update", "delete"]);
  });

  it("create: one create per object, and one list per burst of creates proving the names free", () => {
    expect(step("create").requests).toEqual({
      "domains/list": 1,
      "domains/create": 1,
      "routes/list": 2,
      "routes/create": 10,
    });
    expect(isIdeal(step("create"))).toBe(true);
  });

  it("refresh: at most 2 lists per kind (concurrent reads share in-flight lists), nothing else", () => {
    const refresh = step("refresh");
    const lists = listsPerKind(refresh);
    expect(lists.domains).toBeGreaterThanOrEqual(1);
    expect(lists.domains).toBeLessThanOrEqual(2);
    expect(lists.routes).toBeGreaterThanOrEqual(1);
    expect(lists.routes).toBeLessThanOrEqual(2);
    expect(Object.keys(refresh.requests).sort()).toEqual(["domains/list", "routes/list"]);
  });

  it("update: one routes/update per changed route", () => {
    expect(step("update").requests).toEqual({ "routes/update": 10 });
  });

  it("delete: one delete per object (routes first, then the domain)", () => {
    expect(step("delete").requests).toEqual({ "routes/delete": 10, "domains/delete": 1 });
    expect(emulator.state.routes).toHaveLength(0);
    expect(emulator.state.domains).toHaveLength(0);
  });

  it("the clients sent exactly what the emulator logged: no retries", () => {
    for (const s of result.steps) {
      expect(s.retries).toBe(0);
      expect(s.attempts).toBe(Object.values(s.requests).reduce((a, b) => a + b, 0));
    }
  });
});
