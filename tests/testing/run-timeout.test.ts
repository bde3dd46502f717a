import { Emulator } from "../../emulator";
import { Domain, Route } from "../../provider";
import { useEmulator } from "../support/emulator";
import { destroyRun, runProgram } from "../../testing";

/**
 * A live run that reaches its `timeoutMs` while a provider is still at work (here a domain create
 * the service answers slowly). The program must not go on creating things after `runProgram` has
 * returned: whatever it made then is in no run a test can `destroyRun`, lands in the next run
 * (the runtime is process-wide) and, once the emulator is stopped, fails as an unhandled
 * rejection that kills the test process.
 */

const emulator = useEmulator();

function program(emulator: Emulator, name: string) {
  return () => {
    const domain = new Domain("slow", {
      name,
      cloudflare: { zoneId: emulator.cloudflare.zones[0].id },
      verification: { timeoutSeconds: 20, pollIntervalSeconds: 1 },
    });
    new Route("support", {
      name: "support",
      domainId: domain.domainId,
      endpointId: emulator.state.endpoints[0].id,
      mode: "Hold",
    });
    return { verified: domain.verified };
  };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until the emulator has answered a domains/create (it logs a request once answered). */
async function createAnswered(emulator: Emulator) {
  while (emulator.requests.count("domains/create") === 0) await wait(20);
}

/** What the emulator holds: domains, routes and Cloudflare records, by name. */
function held(emulator: Emulator) {
  return {
    domains: emulator.state.domains.map((d) => d.name),
    routes: emulator.state.routes.map((r) => r.name),
    records: emulator.state.cloudflare.records.map((r) => `${r.type} ${r.name}`),
  };
}

describe("a live run that times out while a provider is at work", () => {
  it("creates nothing after it has returned, and destroyRun deletes everything it made", async () => {
    emulator().faults.set([{ endpoints: "domains/create", latencyMs: 1500, times: 1 }]);
    const run = await runProgram(program(emulator(), "slow.example.com"), {
      mode: "live",
      emulator: emulator(),
      timeoutMs: 300,
    });
    expect(run.errors.map((error) => error.source)).toContain("timeout");

    const atReturn = held(emulator());
    const requestsAtReturn = emulator().requests.all().length;
    await createAnswered(emulator());
    // What would follow the create's answer (records, the route) starts within a few event-loop
    // turns: a second is many times that on a busy machine.
    await wait(1000);
    expect(held(emulator())).toEqual(atReturn);
    expect(emulator().requests.all().length).toBe(requestsAtReturn);

    const destroyed = await destroyRun(run, { mode: "live", emulator: emulator() });
    expect(destroyed.errors).toEqual([]);
    expect(held(emulator())).toEqual({ domains: [], routes: [], records: [] });
  }, 30_000);

  it("the next run holds only its own program's registrations", async () => {
    emulator().faults.set([{ endpoints: "domains/create", latencyMs: 1500, times: 1 }]);
    const first = await runProgram(program(emulator(), "first.example.com"), {
      mode: "live",
      emulator: emulator(),
      timeoutMs: 300,
    });
    const second = await runProgram(
      () => {
        new Route("alone", { name: "alone", domainId: 1, endpointId: 1, mode: "Hold" });
        return {};
      },
      { mode: "preview", emulator: emulator(), timeoutMs: 3000 },
    );
    expect(second.registrations.map((r) => r.name)).toEqual(["email-delivery-test", "alone"]);
    await createAnswered(emulator());
    await wait(1000); // as above
    await destroyRun(first, { mode: "live", emulator: emulator() });
    expect(held(emulator())).toEqual({ domains: [], routes: [], records: [] });
  }, 30_000);
});
