import { Emulator, startEmulator } from "../../emulator";
import { inProcess } from "../../bench/emulator-process";
import { isIdeal, listsPerKind, runLifecycle, LifecycleResult, StepResult } from "../../bench/lifecycle";
import { domainProvider, routeProvider, verificationProvider } from "../../provider/dynamic";

/**
 * The bench's lifecycle measurement (bench/lifecycle.ts) for N = 10 routes on one domain with its
 * records and verification: request counts only, never timings. The emulator runs in this process
 * here (counts do not depend on where it runs; `npm run bench` starts it in its own). The refresh
 * issues every read at once, as the engine sends them; `npm run bench` also measures the refresh
 * through the real provider host.
 */
/** A domain's records as the emulator's default DNS settings make them. */
const RECORDS = 5;

describe("bench: requests per lifecycle step, N = 10", () => {
  let emulator: Emulator;
  let result: LifecycleResult;
  const step = (name: string): StepResult => result.steps.find((s) => s.step === name)!;

  beforeAll(async () => {
    emulator = await startEmulator({ dns: { dkimKeyBits: 1024 } });
    // The sources' providers: this test is about the counts, `npm run bench` uses the installed package.
    const providers = { domainProvider, routeProvider, verificationProvider };
    result = await runLifecycle(inProcess(emulator), { routes: 10, providers });
  });
  afterAll(async () => {
    await emulator?.stop();
  });

  it("runs create, refresh, update and delete of 10 routes on 1 domain", () => {
    expect(result).toMatchObject({ routes: 10, domains: 1 });
    expect(result.steps.map((s) => s.step)).toEqual(["create", "refresh", "update", "delete"]);
  });

  it("create: one create per object and record, no list, one check for the verification", () => {
    expect(step("create").requests).toEqual({
      "domains/create": 1,
      "domains/check": 1,
      "routes/create": 10,
      "cloudflare:dns_records.create": RECORDS,
    });
    expect(isIdeal(step("create"))).toBe(true);
  });

  it("refresh: at most 2 lists per kind, one check per verification, one read per record", () => {
    const refresh = step("refresh");
    const lists = listsPerKind(refresh);
    expect(lists.domains).toBeGreaterThanOrEqual(1);
    expect(lists.domains).toBeLessThanOrEqual(2);
    expect(lists.routes).toBeGreaterThanOrEqual(1);
    expect(lists.routes).toBeLessThanOrEqual(2);
    expect(refresh.requests["domains/check"]).toBe(1);
    expect(refresh.requests["cloudflare:dns_records.get"]).toBe(RECORDS);
    expect(Object.keys(refresh.requests).sort()).toEqual([
      "cloudflare:dns_records.get",
      "domains/check",
      "domains/list",
      "routes/list",
    ]);
  });

  it("update: one routes/update per changed route", () => {
    expect(step("update").requests).toEqual({ "routes/update": 10 });
  });

  it("delete: one delete per object and record (routes and records first, then the domain)", () => {
    expect(step("delete").requests).toEqual({
      "routes/delete": 10,
      "domains/delete": 1,
      "cloudflare:dns_records.delete": RECORDS,
    });
    expect(emulator.state.routes).toHaveLength(0);
    expect(emulator.state.domains).toHaveLength(0);
  });

  it("the clients sent exactly what the emulator's email API logged: no retries", () => {
    for (const s of result.steps) {
      expect(s.retries).toBe(0);
      const emailApi = Object.entries(s.requests).filter(([endpoint]) => !endpoint.startsWith("cloudflare:"));
      expect(s.attempts).toBe(emailApi.reduce((sum, [, count]) => sum + count, 0));
    }
  });
});
