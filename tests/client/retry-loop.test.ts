import { RetryPlan } from "../../provider/client/retry";
import { retrying, Try } from "../../provider/client/retry-loop";

/**
 * The one retry loop, alone: tries scripted, time a fake clock that moves only when the loop
 * sleeps (or a try takes time), and the log shows each try's timeout and each wait.
 */

type Failure = { retryAfterMs?: number; name: string };
type Scripted = Try<string, Failure> & { tookMs?: number };

const plan: RetryPlan = {
  maxAttempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 1000,
  budgetMs: 10_000,
  jitter: "none",
  retryAfterMaxMs: 60_000,
  longRetryAfter: "cap",
  refusalsAreFree: false,
};

function run(script: Scripted[], overrides: Partial<RetryPlan> = {}) {
  const log: string[] = [];
  let time = 0;
  const result = retrying<string, Failure>({
    plan: { ...plan, ...overrides },
    clock: {
      now: () => time,
      sleep: async (ms) => {
        log.push(`sleep ${ms}`);
        time += ms;
      },
    },
    random: () => 0,
    requestTimeoutMs: 3000,
    retryAfterMs: (failure) => failure.retryAfterMs,
    giveUp: (failure) => new Error(`gave up after ${failure.name}`),
    attempt: async (n, timeoutMs) => {
      log.push(`try ${n} (${timeoutMs} ms)`);
      const step = script.shift();
      if (!step) throw new Error("not scripted");
      time += step.tookMs ?? 0;
      return step;
    },
  });
  return { log, result, time: () => time };
}

const retry = (name: string, extra: Partial<Extract<Scripted, { to: "retry" }>> = {}): Scripted => ({
  to: "retry",
  failure: { name },
  wait: true,
  ...extra,
});

it("backs off between tries until one is done", async () => {
  const { log, result } = run([retry("a"), retry("b"), { to: "done", value: "ok" }]);
  await expect(result).resolves.toBe("ok");
  expect(log).toEqual(["try 1 (3000 ms)", "sleep 100", "try 2 (3000 ms)", "sleep 200", "try 3 (3000 ms)"]);
});

it("throws a failure as it is, at once", async () => {
  const { log, result } = run([retry("a"), { to: "fail", error: new Error("for good") }]);
  await expect(result).rejects.toThrow("for good");
  expect(log).toHaveLength(3);
});

it("gives up after maxAttempts tries with the latest failure, without a last useless wait", async () => {
  const { log, result } = run([retry("a"), retry("b"), retry("c"), retry("d")]);
  await expect(result).rejects.toThrow("gave up after d");
  expect(log.filter((line) => line.startsWith("try"))).toHaveLength(4);
  expect(log[log.length - 1]).toBe("try 4 (3000 ms)");
});

it("does not count refusals where the plan says they are free, counts them elsewhere", async () => {
  const refusals = () => [1, 2, 3, 4, 5].map((i) => retry(`429 ${i}`, { refused: true }));
  const free = run([...refusals(), { to: "done", value: "ok" }], { refusalsAreFree: true });
  await expect(free.result).resolves.toBe("ok");
  const counted = run([...refusals(), { to: "done", value: "ok" }]);
  await expect(counted.result).rejects.toThrow("gave up after 429 4");
});

it("waits what Retry-After asks, and gives up when that does not fit the budget", async () => {
  const { log, result } = run([
    retry("a", { failure: { name: "a", retryAfterMs: 7000 } }),
    retry("b", { failure: { name: "b", retryAfterMs: 5000 } }),
  ]);
  await expect(result).rejects.toThrow("gave up after b");
  expect(log).toEqual(["try 1 (3000 ms)", "sleep 7000", "try 2 (3000 ms)"]);
});

it("cuts a try's timeout to the time left, and leaves time waiting for a turn out of the budget", async () => {
  const { log, result } = run([
    retry("slow", { tookMs: 8000 }),
    retry("queued", { tookMs: 5000, queuedMs: 5000 }),
    { to: "done", value: "ok" },
  ]);
  await expect(result).resolves.toBe("ok");
  expect(log).toEqual(["try 1 (3000 ms)", "sleep 100", "try 2 (1900 ms)", "sleep 200", "try 3 (1700 ms)"]);
});

it("tries again at once when asked to, keeping the latest failure", async () => {
  const { log, result } = run(
    [retry("a"), { to: "retry", wait: false }, retry("c", { wait: false }), retry("d")],
    {
      maxAttempts: 4,
    },
  );
  await expect(result).rejects.toThrow("gave up after d");
  expect(log).toEqual([
    "try 1 (3000 ms)",
    "sleep 100",
    "try 2 (3000 ms)",
    "try 3 (3000 ms)",
    "try 4 (3000 ms)",
  ]);
});
