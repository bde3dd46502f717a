import { commandParallel, Lanes } from "../../testing/parallel";

/** How the kit bounds a command's operations as `--parallel` does (testing/parallel.ts). */

it("runs at most `size` calls at once, the others in the order they came", async () => {
  const lanes = new Lanes(2);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const releases: (() => void)[] = [];
  const calls = [1, 2, 3, 4, 5].map((n) =>
    lanes.run(async () => {
      started.push(n);
      most = Math.max(most, ++running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      return n;
    }),
  );
  // Let the first two start; then free one lane at a time.
  await new Promise((resolve) => setImmediate(resolve));
  expect(started).toEqual([1, 2]);
  while (releases.length > 0) {
    releases.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(await Promise.all(calls)).toEqual([1, 2, 3, 4, 5]);
  expect(started).toEqual([1, 2, 3, 4, 5]);
  expect(most).toBe(2);
});

it("frees the lane of a call that throws", async () => {
  const lanes = new Lanes(1);
  await expect(lanes.run(() => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
  await expect(lanes.run(async () => "next")).resolves.toBe("next");
});

it("takes the engine's default, or a whole number of at least 1, naming the function", () => {
  expect(commandParallel(3, "destroyRun")).toBe(3);
  expect(commandParallel(undefined, "destroyRun")).toBeGreaterThanOrEqual(4);
  for (const parallel of [0, -1, 1.5, NaN])
    expect(() => commandParallel(parallel, "destroyRun")).toThrow(
      `destroyRun: parallel must be a whole number of at least 1, not ${parallel}`,
    );
});
