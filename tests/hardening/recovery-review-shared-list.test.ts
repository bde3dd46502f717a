import { createDomainWithRecords } from "../../provider/client/domain-creation";
import { FRESH_LIST_GATHER } from "../../provider/client/process-runtime";
import { useCountedLists } from "../support/counted-lists";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { FakeClock } from "../support/fake-clock";

/**
 * Review of f139362 (issue 36). The list a create sends after its answer was lost is now a fresh
 * list (`listAfterLostAnswer` -> `freshList`), so other fresh callers join it: the refused create
 * that lists to name the holder (`createDomainWithRecords`, the Route provider's conflict path) and
 * a refresh confirming an object gone. But the lookup's list is built with the lookup's own policy,
 * `{ maxAttempts: 1, budgetMs: <what is left of the create's timeout> }`, and a joiner gets exactly
 * that request. So one 503 (or one timeout) on that shared list fails every joiner outright, with
 * a `domains/list` error, where on its own it would have retried (six attempts, 60 s).
 *
 * What a user sees: during an `up` where a network blip lost one create's answer, a Domain whose
 * name is taken fails with "domains/list failed (transient) ... HTTP 503" instead of "Domain x
 * already exists (id …) and this stack did not create it … set `adopt: true` …". Before this
 * commit the refused create's list had its own, retried request.
 *
 * Failed against f139362 (the taken domain's call rejected with the lookup list's 503); lookups
 * have had lists of their own since.
 */

describe("a fresh list shared with a lost answer's lookup", () => {
  const emulator = useEmulator();
  let clock = new FakeClock();
  beforeEach(() => (clock = new FakeClock()));
  afterEach(() => emulator().faults.set([]));
  const counted = useCountedLists(() => clock);

  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it("does not fail a refused create's holder lookup on the lookup list's single attempt", async () => {
    const client = clientFor(emulator(), { random: () => 0 });
    const takenName = uniqueDomain("taken");
    const holder = (await client.createDomain(takenName)).domain;
    emulator().faults.set([
      { endpoints: "domains/create", commitThenDropRate: 1, times: 1 }, // A's create: made, answer lost
      { endpoints: "domains/list", rate503: 1, times: 1 }, // one 503 on the next list
      { endpoints: "routes/create", latencyMs: 1500 }, // another write of the stack, under way meanwhile
    ]);
    // Another resource of the same `up` being created (so lists gather, as in a real deployment).
    const other = client.createRoute({ name: "busy", domainId: holder.id, endpointId: 1 });

    // A: its answer is lost; its lookup list gathers.
    let aDone = false;
    const a = createDomainWithRecords(client, uniqueDomain("lost")).then(
      (outcome) => ((aDone = true), outcome),
      (error: unknown) => ((aDone = true), Promise.reject(error)),
    );
    a.catch(() => undefined);
    await until(() => counted().callers >= 1);

    // B: a Domain whose name another stack holds. The service refuses it; it lists to name the holder.
    const b = createDomainWithRecords(client, takenName);
    const bSettled = b.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error: error as Error }),
    );
    await until(() => counted().callers >= 2);

    // Let the gathering windows pass (A looks again after its list fails).
    while (!aDone) {
      await clock.run(clock.now() + FRESH_LIST_GATHER.maxMs);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await other;

    const result = await bSettled;
    // What the user should read: the name is taken, by the domain that holds it.
    if (!result.ok) throw new Error(`B failed instead of naming the holder: ${result.error.message}`);
    expect(result.value).toMatchObject({ outcome: "taken", existing: { id: holder.id } });
  }, 30_000);
});
