import * as pulumi from "@pulumi/pulumi";
import { runProgram } from "../../testing";

/**
 * One error per cause, but one per resource that failed: two resources that fail with the same
 * text (two Routes given the same bad `mode`) are two failures, each a registration error naming
 * its resource, not one of them reported and the other only as an unhandled rejection.
 */

class Late extends pulumi.CustomResource {
  constructor(name: string) {
    super("test:index:Late", name, {});
  }
}

describe("two resources failing with the same message in one run", () => {
  it("are two registration errors, each naming its resource", async () => {
    // Both are under way before either fails (as two checks sent together), then both fail alike.
    let arrived = 0;
    let bothArrived: () => void = () => undefined;
    const both = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    const run = await runProgram(
      () => {
        new Late("a");
        new Late("b");
        return {};
      },
      {
        mode: "preview",
        hooks: {
          newResource: async (args) => {
            if (args.type !== "test:index:Late") return undefined;
            if (++arrived === 2) bothArrived();
            await both;
            throw new Error('mode: must be one of Endpoint, Bounce, Hold, Reject, not the text "hold"');
          },
        },
      },
    );
    const message = 'mode: must be one of Endpoint, Bounce, Hold, Reject, not the text "hold"';
    expect(run.errors).toEqual([
      { source: "registration", subject: "test:index:Late::a", message },
      { source: "registration", subject: "test:index:Late::b", message },
    ]);
  });
});
