import { Route } from "../../provider";
import { runProgram } from "../../testing";

/**
 * Runs are one at a time (Pulumi's mock runtime is process-wide), and a `runProgram` called while
 * another is under way stops that one. Calls made together (`Promise.all`, `test.concurrent`)
 * must obey the same rule: never two programs on one runtime at once, whose registrations then
 * go nowhere without an error.
 */

const route = (name: string) => () => {
  new Route(name, { name, domainId: 1, endpointId: 1, mode: "Hold" });
  return { name };
};

describe("runProgram called twice at once", () => {
  it("never runs two programs together: the first is stopped, the second holds its own", async () => {
    const [first, second] = await Promise.all([
      runProgram(route("first"), { mode: "preview" }),
      runProgram(route("second"), { mode: "preview" }),
    ]);
    expect(second.errors).toEqual([]);
    expect(second.outputs).toEqual({ name: "second" });
    expect(second.registrations.map((r) => r.name)).toEqual(["email-delivery-test", "second"]);
    expect(first.errors).toEqual([
      {
        source: "stopped",
        message: expect.stringContaining("runProgram was called again before this run returned"),
      },
    ]);
    expect(first.registrations.map((r) => r.name)).not.toContain("second");
  });

  it("while a run is under way, the last of two calls made together runs, the others are stopped", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const going = runProgram(
      async () => {
        await gate;
        return {};
      },
      { mode: "preview" },
    );
    await new Promise((resolve) => setImmediate(resolve));
    const both = Promise.all([
      runProgram(route("second"), { mode: "preview" }),
      runProgram(route("third"), { mode: "preview" }),
    ]);
    release();
    const [second, third] = await both;
    await going;
    expect(third.errors).toEqual([]);
    expect(third.registrations.map((r) => r.name)).toEqual(["email-delivery-test", "third"]);
    expect(second.errors.map((e) => e.source)).toEqual(["stopped"]);
    expect(second.registrations.map((r) => r.name)).not.toContain("third");
  });
});
