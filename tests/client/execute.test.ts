import { EmailApiError, ErrorKind, ExistingObject } from "../../provider/client";
import { execute, ExecuteContext, Operation } from "../../provider/client/execute";
import type { SendResult } from "../../provider/client/transport";

/**
 * The retry loop without sockets: every request's outcome is scripted, time is a fake clock that
 * moves only when the loop sleeps (or a scripted request takes time), and the log shows what the
 * loop did, in order.
 */

type Scripted =
  /** `tookMs`: the time the request took, `queuedMs` of it waiting for this process's turn. */
  | { answer: unknown; tookMs?: number; queuedMs?: number }
  | { fails: EmailApiError; tookMs?: number; queuedMs?: number; unreadableSuccess?: true }
  /** What a lookup by natural key finds: the object holding the key, or none. */
  | { found: ExistingObject | undefined }
  | { lookupFails: EmailApiError };

const failure = (kind: ErrorKind, extra: Partial<EmailApiError> = {}): EmailApiError =>
  new EmailApiError({ operation: "things/create", kind, serviceMessage: `a ${kind} failure`, ...extra });
const lost = () => failure("transient", { code: "ECONNRESET" }); // no answer: may have been applied
const unavailable = (retryAfterMs?: number) => failure("transient", { httpStatus: 503, retryAfterMs });
const tooMany = (retryAfterMs?: number) => failure("transient", { httpStatus: 429, retryAfterMs });
const refused = () => failure("transient", { code: "ECONNREFUSED" }); // never arrived

/** The failure for an object found after a lost answer: it may be this call's or another's. */
const unproven = (holder: ExistingObject) =>
  failure("conflict", { code: "AnswerLostObjectExists", existing: holder, outcomeUnknown: true });
/** An object holding the key: the lost request's, or another party's. */
const holder: ExistingObject = { id: 7, createdAt: "2026-11-28T00:00:00Z" };

function run(
  script: Scripted[],
  op: Partial<Operation<string>> = {},
  context: Partial<ExecuteContext> = {},
): { log: string[]; result: Promise<string> } {
  const log: string[] = [];
  let time = 0;
  const next = (what: string): Scripted => {
    const step = script.shift();
    if (!step) throw new Error(`${what} not scripted (log: ${log.join(", ")})`);
    return step;
  };
  const send = async (): Promise<SendResult> => {
    log.push("send");
    const step = next("send");
    if ("found" in step || "lookupFails" in step) throw new Error("a lookup was scripted, a send came");
    time += step.tookMs ?? 0;
    if ("answer" in step) return { ok: true, data: step.answer, queuedMs: step.queuedMs ?? 0 };
    return {
      ok: false,
      error: step.fails,
      unreadableSuccess: step.unreadableSuccess,
      queuedMs: step.queuedMs ?? 0,
    };
  };
  const lookup = async () => {
    log.push("lookup");
    const step = next("lookup");
    if ("lookupFails" in step) throw step.lookupFails;
    if (!("found" in step)) throw new Error("a send was scripted, a lookup came");
    return step.found;
  };
  const result = execute<string>(
    {
      operation: "things/create",
      body: {},
      parse: (data) => String(data),
      afterLostAnswer: { lookup, unproven },
      ...op,
    },
    {
      send,
      useFallbackKey: () => false,
      policy: { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1000, budgetMs: 60_000 },
      requestTimeoutMs: 30_000,
      random: () => 0,
      clock: {
        now: () => time,
        sleep: async (ms) => {
          log.push(`sleep ${ms}`);
          time += ms;
        },
      },
      ...context,
    },
  );
  return { log, result };
}

describe("execute", () => {
  it("retries a transient failure after a backoff and returns the answer", async () => {
    const { log, result } = run([{ fails: unavailable() }, { answer: "made" }], {
      afterLostAnswer: "resend",
    });
    await expect(result).resolves.toBe("made");
    expect(log).toEqual(["send", "sleep 50", "send"]);
  });

  it("never sends sooner than Retry-After asks", async () => {
    const { log, result } = run([{ fails: unavailable(3000) }, { answer: "made" }], {
      afterLostAnswer: "resend",
    });
    await expect(result).resolves.toBe("made");
    expect(log).toEqual(["send", "sleep 3000", "send"]);
  });

  it("a create looks before it sends again after a 503: a proxy's can follow work done", async () => {
    const { log, result } = run([{ fails: unavailable(3000) }, { found: undefined }, { answer: "made" }]);
    await expect(result).resolves.toBe("made");
    expect(log).toEqual(["send", "sleep 3000", "lookup", "send"]);
    // A 429 is the service's own refusal before any work: sent again without looking.
    const limited = run([{ fails: tooMany(1000) }, { answer: "made" }]);
    await expect(limited.result).resolves.toBe("made");
    expect(limited.log).toEqual(["send", "sleep 1000", "send"]);
  });

  it("does not retry what is not transient", async () => {
    const { log, result } = run([{ fails: failure("validation") }]);
    await expect(result).rejects.toMatchObject({ kind: "validation", attempts: 1 });
    expect(log).toEqual(["send"]);
  });

  describe("after a lost answer", () => {
    it("looks the object up before sending again; one found is never taken for this call's", async () => {
      const { log, result } = run([{ fails: lost() }, { found: holder }]);
      await expect(result).rejects.toMatchObject({
        kind: "conflict",
        code: "AnswerLostObjectExists",
        existing: holder,
        outcomeUnknown: true,
        attempts: 2,
      });
      expect(log).toEqual(["send", "sleep 50", "lookup"]);
    });

    it("sends again at once when the lookup finds nothing", async () => {
      const { log, result } = run([{ fails: lost() }, { found: undefined }, { answer: "made" }]);
      await expect(result).resolves.toBe("made");
      expect(log).toEqual(["send", "sleep 50", "lookup", "send"]);
    });

    it("looks again, never resends, while the lookup itself fails transiently", async () => {
      const { log, result } = run([
        { fails: lost() },
        { lookupFails: unavailable() },
        { found: undefined },
        { answer: "made" },
      ]);
      await expect(result).resolves.toBe("made");
      expect(log).toEqual(["send", "sleep 50", "lookup", "sleep 100", "lookup", "send"]);
    });

    it("fails with an unknown outcome when the lookup fails for good", async () => {
      const { result } = run([{ fails: lost() }, { lookupFails: failure("auth") }]);
      await expect(result).rejects.toMatchObject({ kind: "auth", outcomeUnknown: true, attempts: 2 });
    });

    it("looks up instead of failing when a 2xx answer cannot be read, and takes nothing it finds", async () => {
      const parse = () => {
        throw new Error("not a thing");
      };
      const found = run([{ answer: "unreadable" }, { found: holder }], { parse });
      await expect(found.result).rejects.toMatchObject({ code: "AnswerLostObjectExists", existing: holder });
      expect(found.log).toEqual(["send", "lookup"]);
      // Nothing of the key: the unreadable answer made nothing, so the create is sent again.
      const none = run([{ answer: "unreadable" }, { found: undefined }, { answer: "made" }], {
        parse: (data) => (data === "made" ? "made" : parse()),
      });
      await expect(none.result).resolves.toBe("made");
      expect(none.log).toEqual(["send", "lookup", "send"]);
    });

    it("a resend refused as a duplicate fails: as unproven when the lookup names a holder, else as the conflict", async () => {
      const duplicate = failure("conflict", { code: "AlreadyExists" });
      const script = (found: ExistingObject | undefined): Scripted[] => [
        { fails: lost() },
        { found: undefined }, // not there yet: the lost request, or another party's, lands meanwhile
        { fails: duplicate },
        { found },
      ];
      const named = run(script(holder));
      await expect(named.result).rejects.toMatchObject({
        code: "AnswerLostObjectExists",
        existing: holder,
        attempts: 4,
      });
      expect(named.log).toEqual(["send", "sleep 50", "lookup", "send", "lookup"]);

      const elsewhere = run(script(undefined));
      await expect(elsewhere.result).rejects.toMatchObject({
        kind: "conflict",
        code: "AlreadyExists",
        outcomeUnknown: true,
        attempts: 4,
      });
    });

    it("reports the conflict, not the lookup's failure, when confirming runs out of attempts", async () => {
      const duplicate = failure("conflict", { code: "AlreadyExists" });
      const { result } = run(
        [{ fails: lost() }, { found: undefined }, { fails: duplicate }, { lookupFails: unavailable() }],
        {},
        { policy: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, budgetMs: 60_000 } },
      );
      await expect(result).rejects.toMatchObject({ kind: "conflict", attempts: 4 });
    });

    it("resends an idempotent operation, and settles an error that proves the work was done", async () => {
      const gone = failure("not-found", { code: "ThingNotFound" });
      const { log, result } = run([{ fails: lost() }, { fails: gone }], {
        afterLostAnswer: "resend",
        settleAfterLostAnswer: (error) =>
          error.kind === "not-found" ? { value: "already gone" } : undefined,
      });
      await expect(result).resolves.toBe("already gone");
      expect(log).toEqual(["send", "sleep 50", "send"]);
    });

    it("never settles an error before any answer was lost", async () => {
      const { result } = run([{ fails: failure("not-found", { code: "ThingNotFound" }) }], {
        afterLostAnswer: "resend",
        settleAfterLostAnswer: () => ({ value: "already gone" }),
      });
      const error = await result.then(
        () => undefined,
        (e: EmailApiError) => e,
      );
      expect(error).toMatchObject({ kind: "not-found", code: "ThingNotFound" });
      expect(error?.outcomeUnknown).toBeUndefined();
    });

    it("never resends what must not be sent twice", async () => {
      const { log, result } = run([{ fails: lost() }], { afterLostAnswer: "stop" });
      await expect(result).rejects.toMatchObject({ code: "ECONNRESET", outcomeUnknown: true, attempts: 1 });
      expect(log).toEqual(["send"]);
    });

    it("treats an unreadable 2xx to a write as a lost answer, and to a read as a wrong server", async () => {
      const page = failure("validation", {
        httpStatus: 200,
        serviceMessage: "not JSON (is the base URL right?)",
      });
      const write = run([{ fails: page, unreadableSuccess: true }, { found: undefined }, { answer: "made" }]);
      await expect(write.result).resolves.toBe("made");
      expect(write.log).toEqual(["send", "sleep 50", "lookup", "send"]);

      const read = run([{ fails: page, unreadableSuccess: true }], { afterLostAnswer: "resend", read: true });
      await expect(read.result).rejects.toMatchObject({ kind: "validation", httpStatus: 200 });
      expect(read.log).toEqual(["send"]);
    });
  });

  it("refuses an empty answer to a read: a catch-all route answered, not the service", async () => {
    const { log, result } = run([{ answer: undefined }], { afterLostAnswer: "resend", read: true });
    await expect(result).rejects.toMatchObject({
      kind: "validation",
      serviceMessage: expect.stringContaining("empty body"),
    });
    expect(log).toEqual(["send"]);
  });

  it("resends what never arrived, even an operation that must not be sent twice", async () => {
    const { log, result } = run([{ fails: refused() }, { fails: unavailable() }, { answer: "sent" }], {
      afterLostAnswer: "stop",
    });
    await expect(result).resolves.toBe("sent");
    expect(log).toEqual(["send", "sleep 50", "send", "sleep 100", "send"]);
  });

  describe("bounds", () => {
    const policy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000, budgetMs: 10_000 };

    it("sends at most maxAttempts requests, lookups included", async () => {
      const { log, result } = run(
        [{ fails: lost() }, { found: undefined }, { fails: lost() }],
        {},
        { policy },
      );
      await expect(result).rejects.toMatchObject({ code: "ECONNRESET", attempts: 3, outcomeUnknown: true });
      // Without waiting after the last one: nothing comes after it.
      expect(log).toEqual(["send", "sleep 50", "lookup", "send"]);
    });

    it("does not count 429s against the attempts, only against the time", async () => {
      const script: Scripted[] = [tooMany(), tooMany(), tooMany(), tooMany()].map((fails) => ({ fails }));
      const { log, result } = run([...script, { answer: "made" }], {}, { policy });
      await expect(result).resolves.toBe("made");
      expect(log.filter((entry) => entry === "send")).toHaveLength(5);
    });

    it("gives up at once when the wait asked for does not fit the budget", async () => {
      const { log, result } = run([{ fails: unavailable(20_000) }], {}, { policy });
      await expect(result).rejects.toMatchObject({ httpStatus: 503, attempts: 1 });
      expect(log).toEqual(["send"]);
    });

    it("cuts each request's timeout to what is left of the budget", async () => {
      const timeouts: number[] = [];
      const { result } = run(
        [],
        { afterLostAnswer: "resend" },
        {
          policy,
          send: async (_request, _attempt, timeoutMs) => {
            timeouts.push(timeoutMs);
            return timeouts.length === 1
              ? { ok: false, error: unavailable(), queuedMs: 0 }
              : { ok: true, data: "made", queuedMs: 0 };
          },
        },
      );
      await expect(result).resolves.toBe("made");
      expect(timeouts).toEqual([10_000, 10_000 - 50]);
    });

    it("does not count time spent waiting for this process's turn", async () => {
      // 20 s in all, all of it queued: the service has had none of the 10 s budget yet.
      const { log, result } = run(
        [{ fails: unavailable(), tookMs: 20_000, queuedMs: 20_000 }, { answer: "made" }],
        { afterLostAnswer: "resend" },
        { policy },
      );
      await expect(result).resolves.toBe("made");
      expect(log).toEqual(["send", "sleep 50", "send"]);
    });
  });

  it("switches to the fallback key once when the key is refused, at once", async () => {
    const keyRefused = failure("auth", { code: "InvalidServerAPIKey" });
    let fallbacks = 1;
    const useFallbackKey = () => fallbacks-- > 0;
    const { log, result } = run(
      [{ fails: keyRefused }, { fails: keyRefused }],
      {},
      { useFallbackKey, explain: { authFailureHint: "Rotate it." } },
    );
    await expect(result).rejects.toMatchObject({
      kind: "auth",
      serviceMessage: "a auth failure. Rotate it.",
      attempts: 2,
    });
    expect(log).toEqual(["send", "send"]);
  });
});
