import { Route } from "../../provider";
import { runProgram } from "../../testing";

/**
 * A test that fakes its clock (`jest.useFakeTimers()`, for its own code) and runs a program: the
 * kit's own waits (draining the runtime, `timeoutMs`, the stop) must not wait on that clock, or
 * `runProgram` never returns.
 */

afterEach(() => jest.useRealTimers());

describe("runProgram under jest's fake timers", () => {
  it("returns the program's outputs and registrations", async () => {
    jest.useFakeTimers();
    const run = await runProgram(
      () => {
        new Route("support", { name: "support", domainId: 1, endpointId: 1, mode: "Hold" });
        return { answer: 42 };
      },
      { mode: "preview" },
    );
    expect(run.errors).toEqual([]);
    expect(run.outputs).toEqual({ answer: 42 });
    expect(run.registrations.map((r) => r.name)).toEqual(["email-delivery-test", "support"]);
  }, 10_000);
});
