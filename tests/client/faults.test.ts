import { AttemptRecord, EmailDeliveryClient, isAnswerLostObjectExists } from "../../provider/client";
import { clientFor, failureOf, uniqueDomain, useEmulator } from "../support/emulator";

/** The client under the emulator's injected faults: nothing lost, nothing duplicated. */
describe("client under faults", () => {
  const emulator = useEmulator();
  afterEach(() => emulator().faults.set([]));

  /** A client of its own per operation, so attempts are counted per operation. */
  const counted = (attempts: AttemptRecord[][], maxAttempts = 10): EmailDeliveryClient => {
    const mine: AttemptRecord[] = [];
    attempts.push(mine);
    return clientFor(emulator(), {
      retry: { maxAttempts, baseDelayMs: 1, maxDelayMs: 4 },
      onAttempt: (a) => mine.push(a),
    });
  };

  const createdPerName = (kind: string) => {
    const counts = new Map<string, number>();
    for (const entry of emulator().requests.all()) {
      const created = entry.effect?.created;
      if (created?.kind === kind) {
        // Routes are logged as `name@domain`, their natural key.
        counts.set(created.name, (counts.get(created.name) ?? 0) + 1);
      }
    }
    return counts;
  };

  it("completes 200 mixed operations with 30% of requests failing as 429, 503 or drops", async () => {
    emulator().faults.set(
      [{ endpoints: "*/*", rate429: 0.1, retryAfterSeconds: 0, rate503: 0.1, dropRate: 0.1 }],
      42,
    );
    emulator().requests.clear();
    const attempts: AttemptRecord[][] = [];
    const domains: { id: number; name: string }[] = [];
    const routes: { id: number; domainId: number }[] = [];

    for (let op = 0; op < 200; op++) {
      const client = counted(attempts);
      const step = op % 10;
      if (step === 0 || domains.length === 0) {
        const { domain } = await client.createDomain(uniqueDomain("faults"));
        domains.push(domain);
      } else if (step <= 3) {
        const domain = domains[op % domains.length];
        const { route } = await client.createRoute({
          name: `r${op}`,
          domainId: domain.id,
          endpointId: 1 + (op % 3),
        });
        routes.push(route as { id: number; domainId: number });
      } else if (step === 4) {
        expect((await client.listDomains()).length).toBeGreaterThanOrEqual(domains.length);
      } else if (step === 5) {
        expect((await client.listRoutes()).length).toBeGreaterThanOrEqual(routes.length);
      } else if (step === 6 && routes.length) {
        await client.updateRoute({
          id: routes[op % routes.length].id,
          spamMode: op % 20 ? "Quarantine" : "Fail",
        });
      } else if (step === 7) {
        await client.checkDomain(domains[op % domains.length].id);
      } else if (step === 8 && routes.length > 3) {
        const [route] = routes.splice(op % routes.length, 1);
        await client.deleteRoute(route.id);
      } else {
        await client.listRoutes();
      }
    }

    const state = emulator().state;
    const names = state.domains.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    const routeKeys = state.routes.map((r) => `${r.domainId}/${r.name}`);
    expect(new Set(routeKeys).size).toBe(routeKeys.length);
    expect([...createdPerName("domain").values()].every((count) => count === 1)).toBe(true);
    expect(createdPerName("route").size).toBeGreaterThan(50);
    expect([...createdPerName("route").values()].every((count) => count === 1)).toBe(true);
    expect(state.routes.filter((r) => routes.some((mine) => mine.id === r.id))).toHaveLength(routes.length);

    // No blind re-posts: after a create's answer is lost, the next create comes after a lookup.
    let blindReposts = 0;
    let lostAnswers = 0;
    for (const list of attempts) {
      let lost = false;
      for (const attempt of list) {
        if (attempt.operation.endsWith("/create")) {
          if (lost) blindReposts++;
          lost = attempt.outcome === "transient" && attempt.httpStatus !== 429 && attempt.httpStatus !== 503;
          if (lost) lostAnswers++;
        } else if (attempt.operation.endsWith("/list")) {
          lost = false;
        }
      }
    }
    expect(lostAnswers).toBeGreaterThan(0);
    expect(blindReposts).toBe(0);

    const perOperation = attempts.map((list) => list.length);
    const faultsSeen = emulator()
      .requests.all()
      .filter((entry) => entry.fault !== null).length;
    expect(faultsSeen).toBeGreaterThan(0.2 * emulator().requests.all().length);
    expect(Math.max(...perOperation)).toBeLessThanOrEqual(10);
    console.log(
      `200 operations, ${emulator().requests.all().length} requests, ${faultsSeen} faulted; attempts per operation: ` +
        `max ${Math.max(...perOperation)}, mean ${(perOperation.reduce((a, b) => a + b, 0) / perOperation.length).toFixed(2)}`,
    );
  });

  it("never claims what a create that commits and then drops made: it fails, naming the one object made", async () => {
    emulator().faults.set([{ endpoints: "domains/create,routes/create", commitThenDropRate: 1 }]);
    emulator().requests.clear();
    const client = clientFor(emulator());
    const name = uniqueDomain("ctd");
    const domainError = await failureOf(client.createDomain(name));
    const domain = emulator().state.domains.find((d) => d.name === name)!;
    expect(domainError).toMatchObject({
      operation: "domains/create",
      kind: "conflict",
      code: "AnswerLostObjectExists",
      existing: { id: domain.id },
      outcomeUnknown: true,
    });
    expect(domainError.message).toContain("the answer to create was lost");
    expect(domainError.message).toContain("now exists");
    expect(isAnswerLostObjectExists(domainError)).toBe(true);

    const routeError = await failureOf(
      client.createRoute({ name: "inbox", domainId: domain.id, endpointId: 1 }),
    );
    const route = emulator().state.routes.find((r) => r.domainId === domain.id)!;
    expect(routeError).toMatchObject({
      operation: "routes/create",
      code: "AnswerLostObjectExists",
      existing: { id: route.id },
      outcomeUnknown: true,
    });
    expect(isAnswerLostObjectExists(routeError)).toBe(true);

    // Made with its records: the domain found is reported, not deleted to be made again.
    const withRecords = uniqueDomain("ctd");
    const creation = await client.createDomainWithRecords(withRecords);
    const found = emulator().state.domains.find((d) => d.name === withRecords)!;
    expect(creation).toMatchObject({ outcome: "answerLost", existing: { id: found.id } });

    emulator().faults.set([]);
    expect((await client.listDomains()).filter((d) => d.name === name)).toEqual([
      expect.objectContaining({ id: domain.id }),
    ]);
    expect((await client.listDomains()).filter((d) => d.name === withRecords)).toEqual([
      expect.objectContaining({ id: found.id }),
    ]);
    expect((await client.listRoutes()).filter((r) => r.domainId === domain.id)).toEqual([
      expect.objectContaining({ id: route.id, name: "inbox" }),
    ]);
    // One create each (the lookup found the object, so none was sent again), and nothing deleted.
    const log = emulator().requests.all();
    expect(log.filter((e) => e.endpoint.endsWith("/create")).map((e) => e.endpoint)).toEqual([
      "domains/create",
      "routes/create",
      "domains/create",
    ]);
    expect(log.filter((e) => e.effect?.deleted)).toEqual([]);
  });

  it("never duplicates when answers are slower than the request timeout, nor claims the domain", async () => {
    // Every create is handled 3 s after it arrives, three times the request timeout: the client's
    // timer, set first in the same event loop, fires first however busy the machine, so each
    // create's answer is lost. The timeout is the lookups' too: a second leaves them room for a
    // garbage collection or a descheduled worker on a loaded machine, where 100 ms did not.
    emulator().faults.set([{ endpoints: "domains/create", latencyMs: 3000 }]);
    const creates: string[] = [];
    const client = clientFor(emulator(), {
      requestTimeoutMs: 1000,
      retry: { maxAttempts: 40, baseDelayMs: 20, maxDelayMs: 40 },
      onAttempt: (attempt) =>
        void (attempt.operation === "domains/create" && creates.push(attempt.operation)),
    });
    const name = uniqueDomain("slow");
    const before = emulator().requests.count("domains/create");
    const error = await failureOf(client.createDomain(name));
    // Let every late create land on the server (it logs a request once handled), then look.
    while (emulator().requests.count("domains/create") - before < creates.length) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    emulator().faults.set([]);
    const domains = (await client.listDomains()).filter((d) => d.name === name);
    expect(domains).toHaveLength(1);
    // The first create landed while the client was still sending: a lookup found it, and it is
    // named, not taken.
    expect(error).toMatchObject({
      code: "AnswerLostObjectExists",
      existing: { id: domains[0].id },
      outcomeUnknown: true,
    });
    expect(creates.length).toBeGreaterThan(1);
  });

  it("shares one list request between 50 concurrent callers, and starts a new one after a write", async () => {
    emulator().requests.clear();
    const clients = Array.from({ length: 50 }, () => clientFor(emulator()));
    const lists = await Promise.all(clients.map((client) => client.listDomains()));
    expect(new Set(lists.map((list) => list.length)).size).toBe(1);
    expect(emulator().requests.count("domains/list")).toBe(1);

    await clients[0].createDomain(uniqueDomain("sf")); // lists nothing: the service refuses a taken name
    expect(emulator().requests.count("domains/list")).toBe(1);
    const afterLists = await Promise.all(clients.slice(10, 20).map((client) => client.listDomains()));
    expect(emulator().requests.count("domains/list")).toBe(2);
    expect(new Set(afterLists.map((list) => list.length))).toEqual(new Set([lists[0].length + 1]));
  });
});
