import { runProgram } from "../../testing";
import { Late } from "../support/kit-runs";

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
        new Late("a", { after: "nothing" });
        new Late("b", { after: "nothing" });
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
