import { runProgram } from "../../testing";
import { nodeRealm } from "../../testing/node-realm";
import { Late } from "../support/kit-runs";

/**
 * What a program declares after its run has returned (an async helper it did not await, which
 * declares a resource once its own request answers) is in no run a test holds: `destroyRun` never
 * deletes it. The kit must refuse it, as it refuses the steps of a run that was stopped, not
 * create it after the run returned.
 */

/** A few turns of the event loop: long enough for a registration left going to be sent. */
async function turns(count = 20): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("a registration made after the run returned", () => {
  it("is refused, never answered (created)", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answered: string[] = [];
    const run = await runProgram(
      () => {
        // The helper the program forgot to await.
        void gate.then(() => new Late("late", { after: "x" }));
        return {};
      },
      {
        // A preview is enough: the hook answers as a live run's provider would create.
        mode: "preview",
        hooks: {
          newResource: (args) => {
            if (args.type !== "test:index:Late") return undefined;
            answered.push(args.name);
            return { id: "late-id", state: args.inputs };
          },
        },
      },
    );
    expect(run.errors).toEqual([]);

    // The refused registration's outputs reject with nobody to take them: take them here.
    const process = nodeRealm.process;
    const taken = process.rawListeners("unhandledRejection") as ((...args: unknown[]) => void)[];
    const rejections: string[] = [];
    const collect = (reason: unknown) => void rejections.push(String(reason));
    process.removeAllListeners("unhandledRejection");
    process.on("unhandledRejection", collect);
    try {
      release();
      await turns();
    } finally {
      process.off("unhandledRejection", collect);
      for (const listener of taken) process.on("unhandledRejection", listener);
    }
    expect(answered).toEqual([]);
    expect(rejections.length).toBeGreaterThan(0);
    expect(rejections.every((reason) => reason.includes("stopped by the test kit"))).toBe(true);
  });
});

describe("a registration of a returned run made while the next run is under way", () => {
  it("is refused without ending the next run early", async () => {
    let releaseFirst: () => void = () => undefined;
    const firstGate = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    await runProgram(
      () => {
        void firstGate.then(() => new Late("late", { after: "x" }));
        return {};
      },
      { mode: "preview" },
    );

    let releaseSecond: () => void = () => undefined;
    const secondGate = new Promise<void>((resolve) => {
      releaseSecond = resolve;
    });
    const second = runProgram(
      async () => {
        await secondGate;
        const mine = new Late("mine", { after: "y" });
        return { after: mine.urn.apply(() => "registered") };
      },
      { mode: "preview" },
    );
    // The first run's late registration reaches the second run's runtime, which refuses it; its
    // outputs' rejections are unhandled while the second run listens.
    releaseFirst();
    await turns();
    releaseSecond();
    const run = await second;
    expect(run.errors).toEqual([]);
    expect(run.outputs).toEqual({ after: "registered" });
    expect(run.registrations.map((r) => r.name)).toEqual(["email-delivery-test", "mine"]);
  });
});
