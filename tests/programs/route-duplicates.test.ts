import * as pulumi from "@pulumi/pulumi";
import { Route } from "../../provider";
import { useEmulator } from "../support/emulator";
import { runProgram } from "../../testing";

/** Two Route resources declaring one route (same name, same domain) in one program. */
describe("program: a route declared twice", () => {
  const emulator = useEmulator();

  const twice = (second: { name: string; domainId: number }) => () => {
    new Route("support", { name: "support", domainId: 7, endpointId: 1 });
    new Route("helpdesk", { ...second, endpointId: 2 });
    return {};
  };

  it("fails at preview naming both resources, before anything is sent", async () => {
    emulator().requests.clear();
    const run = await runProgram(twice({ name: "Support", domainId: 7 }), {
      mode: "preview",
      emulator: emulator(),
    });
    const messages = run.errors.map((error) => error.message).join("\n");
    expect(messages).toContain(
      'Route "helpdesk" declares the route "Support" on domain 7, which Route "support" already declares.',
    );
    expect(emulator().requests.all()).toEqual([]);
  });

  it("fails too when the names are outputs (checked beside the inputs, not through them)", async () => {
    const run = await runProgram(
      () => {
        new Route("support", { name: pulumi.output("support"), domainId: 7, endpointId: 1 });
        new Route("helpdesk", { name: pulumi.output("SUPPORT"), domainId: 7, endpointId: 2 });
        return {};
      },
      { mode: "preview" },
    );
    expect(run.errors.map((error) => error.message).join("\n")).toContain(
      'Route "helpdesk" declares the route "SUPPORT" on domain 7, which Route "support" already declares.',
    );
  });

  it("lets the same name on another domain, and the same program run again, through", async () => {
    for (let run = 0; run < 2; run++) {
      const result = await runProgram(twice({ name: "support", domainId: 8 }), { mode: "preview" });
      expect(result.errors).toEqual([]);
    }
    // The duplicate program, run after other runs of it: each run is judged on its own.
    const first = await runProgram(twice({ name: "other", domainId: 7 }), { mode: "preview" });
    const second = await runProgram(twice({ name: "other", domainId: 7 }), { mode: "preview" });
    expect([...first.errors, ...second.errors]).toEqual([]);
  });
});
