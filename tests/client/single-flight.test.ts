import fc from "fast-check";
import { SingleFlight } from "../../provider/client/single-flight";
import { FakeClock } from "../support/fake-clock";

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve, settled: false };
};

describe("SingleFlight", () => {
  it("shares one in-flight call between concurrent callers", async () => {
    const flights = new SingleFlight();
    let started = 0;
    const gate = deferred<string>();
    const calls = Array.from({ length: 10 }, () => flights.run("k", () => (started++, gate.promise)));
    gate.resolve("answer");
    expect(await Promise.all(calls)).toEqual(Array(10).fill("answer"));
    expect(started).toBe(1);
  });

  it("starts afresh once the call has settled", async () => {
    const flights = new SingleFlight();
    let started = 0;
    await flights.run("k", async () => ++started);
    await flights.run("k", async () => ++started);
    expect(started).toBe(2);
  });

  it("does not hand a call that began before an invalidation to later callers", async () => {
    const flights = new SingleFlight();
    const before = deferred<string>();
    const first = flights.run("k", () => before.promise);
    flights.invalidate("k");
    const second = flights.run("k", async () => "after");
    before.resolve("before");
    expect(await first).toBe("before");
    expect(await second).toBe("after");
  });

  it("keeps keys apart and shares failures", async () => {
    const flights = new SingleFlight();
    const a = flights.run("a", async () => "a");
    const failing = deferred<string>();
    const b1 = flights.run("b", () => failing.promise.then(() => Promise.reject(new Error("down"))));
    const b2 = flights.run("b", async () => "never");
    failing.resolve("");
    expect(await a).toBe("a");
    await expect(b1).rejects.toThrow("down");
    await expect(b2).rejects.toThrow("down");
  });
});

describe("SingleFlight with reuse", () => {
  it("hands a settled answer to calls within the reuse window, and not after", async () => {
    // The window is measured on Date.now, which the test moves: no real wait, however busy the machine.
    let now = 1_000_000;
    const clock = jest.spyOn(Date, "now").mockImplementation(() => now);
    try {
      const flights = new SingleFlight();
      let started = 0;
      await flights.run("k", async () => ++started, 200);
      now += 200;
      expect(await flights.run("k", async () => ++started, 200)).toBe(1);
      expect(await flights.run("k", async () => ++started)).toBe(2); // no reuse asked: fresh
      now += 201;
      expect(await flights.run("k", async () => ++started, 200)).toBe(3);
    } finally {
      clock.mockRestore();
    }
  });

  it("never reuses across a write, nor a failure", async () => {
    const flights = new SingleFlight();
    await flights.run("k", async () => "before", 10_000);
    flights.invalidate("k");
    expect(await flights.run("k", async () => "after", 10_000)).toBe("after");
    await expect(flights.run("f", () => Promise.reject(new Error("down")), 10_000)).rejects.toThrow("down");
    expect(await flights.run("f", async () => "up", 10_000)).toBe("up");
  });

  describe("runStartedAfterCall", () => {
    it("never hands a caller an answer whose request started before it called", async () => {
      const flights = new SingleFlight();
      const requests: { startedAfter: number[]; gate: ReturnType<typeof deferred<number>> }[] = [];
      const callers: number[] = [];
      const call = (caller: number) => {
        callers.push(caller);
        return flights.runStartedAfterCall("k", () => {
          const gate = deferred<number>();
          requests.push({ startedAfter: [...callers], gate });
          return gate.promise;
        });
      };
      const first = call(1); // starts at once
      const later = [call(2), call(3), call(4)]; // arrive while the first is in flight: share the next
      expect(requests).toHaveLength(1);
      requests[0].gate.resolve(1);
      expect(await first).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      expect(requests).toHaveLength(2);
      // The second request started after every caller that receives its answer.
      expect(requests[1].startedAfter).toEqual([1, 2, 3, 4]);
      const fifth = call(5); // arrives while the second is in flight: a third request
      requests[1].gate.resolve(2);
      expect(await Promise.all(later)).toEqual([2, 2, 2]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(requests).toHaveLength(3);
      requests[2].gate.resolve(3);
      expect(await fifth).toBe(3);
    });

    it("starts the next request after a failed one, and hands the failure only to its callers", async () => {
      const flights = new SingleFlight();
      let started = 0;
      const failing = deferred<number>();
      const first = flights.runStartedAfterCall(
        "k",
        () => (started++, failing.promise.then(() => Promise.reject(new Error("lost")))),
      );
      const second = flights.runStartedAfterCall("k", async () => ++started);
      failing.resolve(0);
      await expect(first).rejects.toThrow("lost");
      expect(await second).toBe(2);
    });
  });
});

describe("SingleFlight write-through", () => {
  it("applies a write to the settled answer: a caller reusing it gets the write, and no request is sent", async () => {
    const flights = new SingleFlight();
    let started = 0;
    const list = () => (started++, Promise.resolve(["a"]));
    expect(await flights.run("k", list, 60_000)).toEqual(["a"]);
    flights.patch("k", (answer) => [...(answer as string[]), "b"]);
    expect(await flights.run("k", list, 60_000)).toEqual(["a", "b"]);
    expect(started).toBe(1);
  });

  it("applies a write answered while a request is in flight to its answer, for every caller of it", async () => {
    const flights = new SingleFlight();
    const gate = deferred<string[]>();
    let started = 0;
    const list = () => (started++, gate.promise);
    const before = flights.run("k", list, 60_000); // joined before the write
    flights.patch("k", (answer) => [...(answer as string[]), "b"]);
    const after = flights.run("k", list, 60_000); // the writer itself, after its write answered
    gate.resolve(["a"]); // read before the write landed
    expect(await before).toEqual(["a", "b"]);
    expect(await after).toEqual(["a", "b"]);
    expect(started).toBe(1);
  });

  it("leaves a caller's earlier answer as it was: a write makes a new answer", async () => {
    const flights = new SingleFlight();
    const first = await flights.run("k", async () => ["a"], 60_000);
    flights.patch("k", (answer) => [...(answer as string[]), "b"]);
    expect(first).toEqual(["a"]);
  });

  it("never patches an answer of before an invalidation: the next caller starts afresh", async () => {
    const flights = new SingleFlight();
    await flights.run("k", async () => ["a"], 60_000);
    flights.invalidate("k"); // a write whose outcome is unknown
    flights.patch("k", (answer) => [...(answer as string[]), "b"]);
    expect(await flights.run("k", async () => ["fresh"], 60_000)).toEqual(["fresh"]);
  });

  it("reuses a fresh list's answer, unless a newer one is already reused", async () => {
    const flights = new SingleFlight();
    let started = 0;
    expect(await flights.runStartedAfterCall("k", async () => [`fresh ${++started}`])).toEqual(["fresh 1"]);
    expect(await flights.run("k", async () => [`shared ${++started}`], 60_000)).toEqual(["fresh 1"]);

    // A fresh list sent before a shared one, settling after it, does not replace it.
    const old = deferred<string[]>();
    const older = flights.runStartedAfterCall("k", () => old.promise);
    flights.invalidate("k");
    expect(await flights.run("k", async () => ["newer"], 60_000)).toEqual(["newer"]);
    old.resolve(["older"]);
    await older;
    expect(await flights.run("k", async () => ["again"], 60_000)).toEqual(["newer"]);
  });

  it("shares a fresh list in flight with callers that take any answer, patched as theirs", async () => {
    const flights = new SingleFlight();
    const gate = deferred<string[]>();
    let started = 0;
    const proof = flights.runStartedAfterCall("k", () => (started++, gate.promise));
    flights.patch("k", (answer) => [...(answer as string[]), "b"]);
    const read = flights.run("k", async () => (started++, ["other"]));
    gate.resolve(["a"]);
    expect(await read).toEqual(["a", "b"]);
    expect(await proof).toEqual(["a", "b"]);
    expect(started).toBe(1);
  });

  it("hands no caller a list that predates its own write, however requests and writes interleave", async () => {
    // A model service holding ids; each writer adds or removes its own id, then lists, shared
    // (reusing) or fresh. Requests read the service at some point between being sent and settling.
    type Request = { read?: Set<number>; gate: ReturnType<typeof deferred<number[]>> };
    const steps = fc.array(fc.nat(), { minLength: 40, maxLength: 120 });
    const writers = fc.array(fc.record({ add: fc.boolean(), fresh: fc.boolean(), known: fc.boolean() }), {
      minLength: 1,
      maxLength: 8,
    });
    await fc.assert(
      fc.asyncProperty(writers, steps, async (plans, choices) => {
        const flights = new SingleFlight();
        const service = new Set(plans.flatMap((plan, id) => (plan.add ? [] : [id])));
        const requests: Request[] = [];
        const list = () => {
          const request: Request = { gate: deferred<number[]>() };
          requests.push(request);
          return request.gate.promise;
        };
        type Writer = { id: number; stage: number; answer?: number[] };
        const states: Writer[] = plans.map((_, id) => ({ id, stage: 0 }));
        const actions = () => [
          ...states
            .filter((w) => w.stage < 3)
            .map((w) => () => {
              const plan = plans[w.id];
              if (w.stage === 0) {
                if (plan.add) service.add(w.id);
                else service.delete(w.id); // landed on the service
              } else if (w.stage === 1) {
                const patch = (answer: unknown) =>
                  plan.add
                    ? [...(answer as number[]).filter((id) => id !== w.id), w.id]
                    : (answer as number[]).filter((id) => id !== w.id);
                if (plan.known) flights.patch("k", patch);
                else flights.invalidate("k"); // its answer was lost
              } else {
                const asked = plan.fresh
                  ? flights.runStartedAfterCall("k", list)
                  : flights.run("k", list, 60_000);
                void asked.then((answer) => (w.answer = answer as number[]));
              }
              w.stage++;
            }),
          ...requests.filter((r) => r.read === undefined).map((r) => () => void (r.read = new Set(service))),
          ...requests
            .filter((r) => r.read && r.gate.settled !== true)
            .map((r) => () => {
              r.gate.settled = true;
              r.gate.resolve([...r.read!]);
            }),
        ];
        for (const choice of choices) {
          const enabled = actions();
          if (enabled.length === 0) break;
          enabled[choice % enabled.length]();
          await new Promise((resolve) => setImmediate(resolve));
        }
        // Let every request read and settle.
        for (let enabled = actions(); enabled.length > 0; enabled = actions()) {
          enabled[0]();
          await new Promise((resolve) => setImmediate(resolve));
        }
        for (const w of states) {
          expect(w.answer?.includes(w.id)).toBe(plans[w.id].add);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("SingleFlight's gathering window", () => {
  it("sends one fresh list for callers arriving close together, after the last of them called", async () => {
    const clock = new FakeClock();
    const flights = new SingleFlight({ clock, gather: { quietMs: 30, maxMs: 200 } });
    const sent: { at: number; callers: number }[] = [];
    let callers = 0;
    const answers: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i++) {
      callers++;
      answers.push(
        flights.runStartedAfterCall("k", async () => {
          sent.push({ at: clock.now(), callers });
          return sent.length;
        }),
      );
      await clock.run(clock.now() + 20);
    }
    await clock.run();
    expect(sent).toEqual([{ at: 110, callers: 5 }]);
    expect(await Promise.all(answers)).toEqual([1, 1, 1, 1, 1]);
    // A caller after the send waits for a list of its own.
    const later = flights.runStartedAfterCall("k", async () => (sent.push({ at: clock.now(), callers }), 2));
    await clock.run();
    expect(await later).toBe(2);
    expect(sent).toHaveLength(2);
  });

  it("sends at once when told nothing else could share it, unless a list is in flight", async () => {
    const clock = new FakeClock();
    const flights = new SingleFlight({ clock, gather: { quietMs: 30, maxMs: 200 } });
    const sentAt: number[] = [];
    const gate = deferred<number>();
    const first = flights.runStartedAfterCall("k", () => (sentAt.push(clock.now()), gate.promise), false);
    expect(sentAt).toEqual([0]); // before returning, with no timer
    // Arriving while it is in flight, this one waits for it and for the window, told or not.
    const second = flights.runStartedAfterCall("k", async () => (sentAt.push(clock.now()), 2), false);
    await clock.run(10);
    gate.resolve(1);
    await clock.run();
    expect(sentAt).toEqual([0, 30]);
    expect([await first, await second]).toEqual([1, 2]);
  });
});
