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
    const flights = new SingleFlight();
    let started = 0;
    await flights.run("k", async () => ++started, 200);
    expect(await flights.run("k", async () => ++started, 200)).toBe(1);
    expect(await flights.run("k", async () => ++started)).toBe(2); // no reuse asked: fresh
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await flights.run("k", async () => ++started, 200)).toBe(3);
  });

  it("never reuses across a write, nor a failure", async () => {
    const flights = new SingleFlight();
    await flights.run("k", async () => "before", 10_000);
    flights.invalidate("k");
    expect(await flights.run("k", async () => "after", 10_000)).toBe("after");
    await expect(flights.run("f", () => Promise.reject(new Error("down")), 10_000)).rejects.toThrow("down");
    expect(await flights.run("f", async () => "up", 10_000)).toBe("up");
  });
});
