import { gatherThen, GatherWindow } from "../../provider/client/gathering";
import { FakeClock, settle } from "../support/fake-clock";

/** The gathering window of fresh lists (gathering.ts), on a fake clock: no real time passes. */
describe("gatherThen", () => {
  const window: GatherWindow = { quietMs: 30, maxMs: 200 };

  /** A gathering whose send records when it happened. */
  const start = (clock: FakeClock, previous?: Promise<unknown>, w = window) => {
    const sentAt: number[] = [];
    const gathering = gatherThen(clock, w, previous, async () => {
      sentAt.push(clock.now());
      return sentAt.length;
    });
    return { gathering, sentAt };
  };

  it("sends at once, before returning, with no window and nothing in flight", () => {
    const clock = new FakeClock();
    const { gathering, sentAt } = start(clock, undefined, { quietMs: 0, maxMs: 0 });
    expect(gathering.sent).toBe(true);
    expect(sentAt).toEqual([0]);
  });

  it("sends once no caller arrived for the quiet time, with every caller's answer the same", async () => {
    const clock = new FakeClock();
    const { gathering, sentAt } = start(clock);
    const answers = [gathering.join()];
    await clock.run(20);
    answers.push(gathering.join()); // within the quiet time: it starts again
    await clock.run(49);
    expect(sentAt).toEqual([]);
    answers.push(gathering.join());
    await clock.run();
    expect(sentAt).toEqual([79]);
    expect(gathering.sent).toBe(true);
    expect(await Promise.all(answers)).toEqual([1, 1, 1]);
  });

  it("sends no later than the longest wait after the first caller, however many keep arriving", async () => {
    const clock = new FakeClock();
    const { gathering, sentAt } = start(clock);
    gathering.join();
    for (let at = 10; at <= 300; at += 10) {
      await clock.run(at);
      if (!gathering.sent) gathering.join();
    }
    expect(sentAt).toEqual([200]);
  });

  it("waits for the request in flight to settle, gathering meanwhile, then sends at once", async () => {
    const clock = new FakeClock();
    let settlePrevious!: () => void;
    const previous = new Promise<void>((resolve) => (settlePrevious = resolve));
    const { gathering, sentAt } = start(clock, previous);
    gathering.join();
    await clock.run(500); // the window is long over, but the previous request is still out
    expect(sentAt).toEqual([]);
    gathering.join();
    settlePrevious();
    await settle();
    expect(sentAt).toEqual([500]);
  });

  it("sends after a failed previous request too", async () => {
    const clock = new FakeClock();
    const previous = Promise.reject(new Error("lost"));
    previous.catch(() => undefined); // its own caller handles it
    const { gathering, sentAt } = start(clock, previous);
    await clock.run();
    expect(sentAt).toEqual([30]);
    expect(await gathering.join()).toBe(1);
  });

  it("hands a send that throws to every caller as a failure", async () => {
    const clock = new FakeClock();
    const gathering = gatherThen(clock, window, undefined, () => {
      throw new Error("cannot send");
    });
    const failed = expect(gathering.join()).rejects.toThrow("cannot send");
    await clock.run();
    await failed;
  });
});
