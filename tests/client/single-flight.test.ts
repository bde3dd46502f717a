import { SingleFlight } from "../../provider/client/single-flight";

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
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
