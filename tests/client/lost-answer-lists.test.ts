import { isAnswerLostObjectExists } from "../../provider/client";
import { FRESH_LIST_GATHER } from "../../provider/client/process-runtime";
import { useCountedLists } from "../support/counted-lists";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { FakeClock } from "../support/fake-clock";

/**
 * What lists cost. A create that succeeds sends no list (the service refuses a name it holds);
 * only a create whose answer was lost lists, to see what it made, and the creates that lost theirs
 * at about the same time share one list. The gathering window runs on a fake clock moved only once
 * every lost create has asked for its list, so the count does not depend on how busy the machine
 * is: in real time the window (100 ms quiet, 1 s at most) gathers lookups that arrive close
 * together the same way.
 */

const N = 30;

describe("lists after lost answers", () => {
  const emulator = useEmulator();
  let clock = new FakeClock();
  beforeEach(() => {
    clock = new FakeClock();
    emulator().requests.clear();
  });
  afterEach(() => emulator().faults.set([]));
  const lists = useCountedLists(() => clock);

  /** Waits (on events, not a time bound) until `count` lookups have joined, then lets the window pass. */
  async function releaseWhenJoined(count: number): Promise<void> {
    while (lists().callers < count) await new Promise((resolve) => setTimeout(resolve, 5));
    await clock.run(FRESH_LIST_GATHER.maxMs);
  }

  const sent = (path: string) =>
    emulator()
      .requests.all()
      .filter((entry) => entry.endpoint === path).length;

  it("a create that succeeds sends no list", async () => {
    const client = clientFor(emulator());
    const { domain } = await client.createDomain(uniqueDomain("nolist"));
    await Promise.all(
      Array.from({ length: N }, (_, i) =>
        client.createRoute({ name: `r${i}`, domainId: domain.id, endpointId: 1 }),
      ),
    );
    expect(sent("domains/list") + sent("routes/list")).toBe(0);
    expect(lists().callers).toBe(0);
  });

  it(`${N} creates whose requests were dropped unhandled share one list, then each is sent again and made once`, async () => {
    const client = clientFor(emulator(), { random: () => 0 });
    const { domain } = await client.createDomain(uniqueDomain("dropped"));
    emulator().faults.set([{ endpoints: "routes/create", dropRate: 1, times: N }]);
    const creates = Promise.all(
      Array.from({ length: N }, (_, i) =>
        client.createRoute({ name: `r${i}`, domainId: domain.id, endpointId: 1 }),
      ),
    );
    await releaseWhenJoined(N);
    const routes = await creates;

    expect(sent("routes/list")).toBe(1);
    expect(sent("routes/create")).toBe(2 * N); // each dropped once, then made
    const held = emulator().state.routes.filter((route) => route.domainId === domain.id);
    expect(held.map((route) => route.id).sort()).toEqual(routes.map(({ route }) => route.id).sort());
    expect(new Set(held.map((route) => route.name)).size).toBe(N);
  });

  it(`${N} creates whose answers were lost after the service made them share one list, and none is claimed or deleted`, async () => {
    const client = clientFor(emulator(), { random: () => 0 });
    const { domain } = await client.createDomain(uniqueDomain("committed"));
    emulator().faults.set([{ endpoints: "routes/create", commitThenDropRate: 1, times: N }]);
    const outcomes = Promise.allSettled(
      Array.from({ length: N }, (_, i) =>
        client.createRoute({ name: `r${i}`, domainId: domain.id, endpointId: 1 }),
      ),
    );
    await releaseWhenJoined(N);
    const settled = await outcomes;

    expect(sent("routes/list")).toBe(1);
    expect(sent("routes/create")).toBe(N); // never sent again over an object of that name
    expect(sent("routes/delete") + sent("routes/update")).toBe(0);
    const held = emulator().state.routes.filter((route) => route.domainId === domain.id);
    expect(held).toHaveLength(N);
    for (const [i, outcome] of settled.entries()) {
      expect(outcome.status).toBe("rejected");
      const error = (outcome as PromiseRejectedResult).reason as unknown;
      expect(isAnswerLostObjectExists(error)).toBe(true);
      // It names the object it found: the one the service made of that name.
      expect((error as { existing: { id: number } }).existing.id).toBe(
        held.find((r) => r.name === `r${i}`)!.id,
      );
    }
  });
});
