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

/**
 * A live run of `program` that its `timeoutMs` stops while the domain's create is under way (the
 * emulator answers it 1.5 s late), and a wait for that answer. The create must reach the emulator
 * before the timeout: on a machine too busy to send it within 300 ms, that run is destroyed and the
 * scenario tried again with a longer timeout.
 */
async function runStoppedMidCreate(name: string) {
  const faults = emulator().faults;
  const decide = faults.decide;
  for (const timeoutMs of [300, 1_000, 3_000]) {
    const answeredBefore = emulator().requests.count("domains/create");
    let sent = false;
    faults.decide = (endpoint) => {
      if (endpoint === "domains/create") sent = true;
      return decide.call(faults, endpoint);
    };
    faults.set([{ endpoints: "domains/create", latencyMs: 1500, times: 1 }]);
    let run: Awaited<ReturnType<typeof runProgram>>;
    try {
      run = await runProgram(program(emulator(), name), { mode: "live", emulator: emulator(), timeoutMs });
    } finally {
      faults.decide = decide;
    }
    if (sent) {
      // The emulator logs a request once it has answered it.
      const answered = async () => {
        while (emulator().requests.count("domains/create") === answeredBefore) await wait(20);
      };
      return { run, answered };
    }
    await destroyRun(run, { mode: "live", emulator: emulator() });
  }
  throw new Error("the domain's create never reached the emulator before the run's timeout (3 s)");
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
    const { run, answered } = await runStoppedMidCreate("slow.example.com");
    expect(run.errors.map((error) => error.source)).toContain("timeout");

    const atReturn = held(emulator());
    const requestsAtReturn = emulator().requests.all().length;
    await answered();
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
    const { run: first, answered } = await runStoppedMidCreate("first.example.com");
    const second = await runProgram(
      () => {
        new Route("alone", { name: "alone", domainId: 1, endpointId: 1, mode: "Hold" });
        return {};
      },
      { mode: "preview", emulator: emulator(), timeoutMs: 3000 },
    );
    expect(second.registrations.map((r) => r.name)).toEqual(["email-delivery-test", "alone"]);
    await answered();
    await wait(1000); // as above
    await destroyRun(first, { mode: "live", emulator: emulator() });
    expect(held(emulator())).toEqual({ domains: [], routes: [], records: [] });
  }, 30_000);
});
