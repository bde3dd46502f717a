import { AttemptRecord, createClient, EmailApiError } from "../../provider/client";
import { forgetRateLimits, forgetSharedLists } from "../../provider/client/process-runtime";
import { envelope, startScriptedServer } from "../support/scripted-server";

/**
 * The time budget against a rate-limited service, over real HTTP on 127.0.0.1 with simulated time:
 * a Date.now that moves when the service answers, or jest's fake timers. Nothing here measures
 * real time.
 */
const KEY = "ScriptedKey0000000000001";
const tooMany = (retryAfter: string) => ({
  status: 429,
  body: "slow down",
  headers: { "Retry-After": retryAfter },
});

beforeEach(() => {
  forgetRateLimits();
  forgetSharedLists();
});
afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

describe("the time budget against 429s", () => {
  it("a lookup after a lost create answer keeps to what is left of the create's budget, 429s included", async () => {
    // Each answer takes the service 10 s. The create is refused with 503 four times, then its
    // connection drops (the answer is lost): 50 s of its 60 s budget are gone. The lookup that
    // follows is refused with 429 every time.
    const server = await startScriptedServer([
      { status: 200, body: envelope([]) }, // the list proving the name free
      { status: 503, body: "" },
      { status: 503, body: "" },
      { status: 503, body: "" },
      { status: 503, body: "" },
      { drop: true },
      tooMany("0"),
    ]);
    const realNow = Date.now.bind(Date);
    jest.spyOn(Date, "now").mockImplementation(() => realNow() + 10_000 * server.received.length);
    const attempts: AttemptRecord[] = [];
    const client = createClient({
      baseUrl: server.url,
      apiKey: KEY,
      retry: { baseDelayMs: 5, maxDelayMs: 20, budgetMs: 60_000 },
      onAttempt: (attempt) => attempts.push(attempt),
    });
    try {
      const error = await client.createDomain("lost.example.com").catch((e: EmailApiError) => e);
      expect(error).toMatchObject({ kind: "transient", outcomeUnknown: true });
      const lookups = attempts.filter((a, i) => a.operation === "domains/list" && i > 5);
      // 10 s were left: one lookup fits. Today the lookup, sent with `maxAttempts: 1`, retries its
      // 429s for a budget of its own (60 s more), since 429s no longer count as attempts.
      expect(lookups.length).toBeLessThanOrEqual(1);
    } finally {
      await server.close();
    }
  });

  it("retries after a Retry-After that fits the budget, rather than giving up because the jitter on top would not", async () => {
    // A per-minute window: the service says to come back in 57 s, at once (the budget is 60 s).
    const server = await startScriptedServer([tooMany("57"), { status: 200, body: envelope([]) }]);
    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] });
    const realTick = () => new Promise<void>((resolve) => setImmediate(resolve));
    const attempts: AttemptRecord[] = [];
    const client = createClient({
      baseUrl: server.url,
      apiKey: KEY,
      retry: { budgetMs: 60_000 },
      random: () => 0.99, // the jitter on top: up to 4 s here
      onAttempt: (attempt) => attempts.push(attempt),
    });
    try {
      let outcome: { value?: unknown; error?: EmailApiError } | undefined;
      client.listDomains().then(
        (value) => (outcome = { value }),
        (error: EmailApiError) => (outcome = { error }),
      );
      for (let i = 0; i < 20_000 && attempts.length === 0; i++) await realTick();
      for (let i = 0; i < 20; i++) await realTick();
      // Today: given up at once, as 57 s plus the jitter on top (3.96 s) passes the budget.
      expect(outcome?.error?.message).toBeUndefined();
      jest.advanceTimersToNextTimer(); // the wait before the retry
      for (let i = 0; i < 20_000 && outcome === undefined; i++) await realTick();
      expect(outcome).toEqual({ value: [] });
      expect(server.received).toHaveLength(2);
    } finally {
      jest.useRealTimers();
      await server.close();
    }
  });
});
