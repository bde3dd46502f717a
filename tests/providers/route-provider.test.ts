import * as http from "node:http";
import { routeAnswerLost } from "../support/answer-lost";
import { routeProvider } from "../../provider/dynamic";
import { UNKNOWN } from "../../provider/inputs";
import type { RequestLogEntry } from "../../emulator";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { configureFor, configureForUrl, failure } from "../support/providers";
import { forgetConfig } from "../../provider/dynamic/configured";
import { envelope, listenOnLoopback, startScriptedServer } from "../support/scripted-server";

/** A logged request as `endpoint` or `endpoint:fault`. */
const endpointAndFault = (e: RequestLogEntry) => `${e.endpoint}${e.fault ? `:${e.fault}` : ""}`;

/** What a logged request created, deleted or changed on the service, if anything. */
const changed = (e: RequestLogEntry) => e.effect?.created ?? e.effect?.deleted ?? e.effect?.updated;

/** routeProvider called directly, as the provider host calls it, against the emulator. */
describe("routeProvider", () => {
  const emulator = useEmulator();
  let domainId: number;
  beforeAll(async () => {
    domainId = (await clientFor(emulator()).createDomain(uniqueDomain("routes"))).domain.id;
  });
  beforeEach(() => configureFor(emulator(), [routeProvider]));

  const inputs = (overrides: Record<string, unknown> = {}) => ({
    name: `r${Math.random().toString(36).slice(2, 8)}`,
    domainId,
    endpointId: 1,
    mode: "Endpoint",
    spamMode: "Mark",
    adopt: false,
    ...overrides,
  });

  describe("check", () => {
    it("fills the service's defaults", async () => {
      expect(await routeProvider.check({}, { name: "support", domainId: 3, endpointId: 1 })).toEqual({
        inputs: {
          name: "support",
          domainId: 3,
          endpointId: 1,
          mode: "Endpoint",
          spamMode: "Mark",
          adopt: false,
        },
        failures: [],
      });
    });

    it("accepts the wildcard and the return-path route", async () => {
      for (const name of ["*", "__returnpath__", "no-reply.team"]) {
        expect((await routeProvider.check({}, { name, domainId: 1, endpointId: 1 })).failures).toEqual([]);
      }
    });

    it("names every bad property with a reason", async () => {
      const result = await routeProvider.check(
        {},
        { name: "Support@mail.example.com", domainId: -1, endpointId: 2.5, mode: "Accept", spamMode: "mark" },
      );
      expect(result.failures).toEqual([
        { property: "name", reason: 'is the local part only, without "@domain": use "Support"' },
        { property: "domainId", reason: "must be a positive whole number, not -1" },
        { property: "endpointId", reason: "must be a positive whole number, not 2.5" },
        { property: "mode", reason: 'must be one of Endpoint, Bounce, Hold, Reject, not the text "Accept"' },
        { property: "spamMode", reason: 'must be one of Mark, Quarantine, Fail, not the text "mark"' },
      ]);
      expect(
        (await routeProvider.check({}, { name: "Support", domainId: "3", endpointId: 1 })).failures,
      ).toEqual([
        { property: "name", reason: 'must be lowercase (the service refuses upper case): use "support"' },
        { property: "domainId", reason: 'must be a number (the service\'s numeric id), not the text "3"' },
      ]);
    });

    it("lets a domain id unknown at preview through", async () => {
      const result = await routeProvider.check({}, { name: "a", domainId: UNKNOWN, endpointId: 1 });
      expect(result).toMatchObject({ failures: [], inputs: { domainId: UNKNOWN } });
    });
  });

  describe("diff", () => {
    const olds = {
      routeId: 5,
      name: "a",
      domainId: 1,
      endpointId: 1,
      mode: "Endpoint",
      spamMode: "Mark",
      adopt: false,
      __provider: "old",
    };
    const news = {
      name: "a",
      domainId: 1,
      endpointId: 1,
      mode: "Endpoint",
      spamMode: "Mark",
      adopt: false,
      __provider: "new",
    };

    it("sees no change when only the serialized provider changed", async () => {
      expect(await routeProvider.diff("5", olds, news)).toEqual({
        changes: false,
        replaces: [],
        deleteBeforeReplace: false,
      });
    });

    it("updates name, endpoint, mode and spam mode in place", async () => {
      const changed = { ...news, name: "b", endpointId: 2, mode: "Hold", spamMode: "Fail" };
      expect(await routeProvider.diff("5", olds, changed)).toEqual({
        changes: true,
        replaces: [],
        deleteBeforeReplace: false,
      });
    });

    it("replaces, deleting first, on a new or unknown domain", async () => {
      const expected = { changes: true, replaces: ["domainId"], deleteBeforeReplace: true };
      expect(await routeProvider.diff("5", olds, { ...news, domainId: 2 })).toEqual(expected);
      expect(await routeProvider.diff("5", olds, { ...news, domainId: UNKNOWN })).toEqual(expected);
    });
  });

  it("creates, updates in one request, reads and deletes", async () => {
    const wanted = inputs({ mode: "Hold", spamMode: "Quarantine" });
    emulator().requests.clear();
    const { id, outs } = await routeProvider.create({ ...wanted, __provider: "p" });
    expect(outs).toEqual({ routeId: Number(id), uuid: expect.any(String), ...wanted });

    emulator().requests.clear();
    const updated = await routeProvider.update(id, outs, { ...wanted, endpointId: 2, spamMode: "Fail" });
    expect(emulator().requests.counts()).toEqual({ "routes/update": 1 });
    expect(updated.outs).toEqual({ ...outs, endpointId: 2, spamMode: "Fail" });
    const stored = emulator().state.routes.find((r) => r.id === Number(id))!;
    expect([stored.endpointId, stored.spamMode]).toEqual([2, "Fail"]);

    const read = await routeProvider.read(id, updated.outs);
    expect(read).toEqual({
      id,
      props: updated.outs,
      inputs: { name: wanted.name, domainId, endpointId: 2, mode: "Hold", spamMode: "Fail", adopt: false },
    });

    emulator().requests.clear();
    await routeProvider.delete(id, updated.outs);
    expect(emulator().requests.counts()).toEqual({ "routes/delete": 1 });
    await expect(routeProvider.delete(id, updated.outs)).resolves.toBeUndefined(); // already gone
  });

  it("creates 50 routes at once with 50 creates and no list", async () => {
    emulator().requests.clear();
    const created = await Promise.all(Array.from({ length: 50 }, () => routeProvider.create(inputs())));
    expect(new Set(created.map((route) => route.id)).size).toBe(50);
    expect(emulator().requests.counts()).toEqual({ "routes/create": 50 });
  });

  describe("when the create's answer is lost", () => {
    afterEach(() => emulator().faults.set([]));

    it("fails when a route of that name is then on the domain, naming it, and changes nothing", async () => {
      // Made by this call's create, or by another stack's meanwhile: nothing tells which.
      const wanted = inputs();
      emulator().faults.set([{ endpoints: "routes/create", commitThenDropRate: 1, times: 1 }]);
      emulator().requests.clear();
      const error = await failure(routeProvider.create(wanted));
      const held = emulator().state.routes.filter((r) => r.domainId === domainId && r.name === wanted.name);
      expect(held).toHaveLength(1);
      expect(error.message).toBe(routeAnswerLost(wanted.name, domainId, held[0].id));
      const requests = emulator().requests.all();
      expect(requests.map(endpointAndFault)).toEqual(["routes/create:commit-then-drop", "routes/list"]);
      expect(requests.map(changed)).toEqual([
        { kind: "route", id: held[0].id, name: expect.stringMatching(new RegExp(`^${wanted.name}@`)) },
        undefined,
      ]);
    });

    it("creates it again when nothing was made, after one list", async () => {
      const wanted = inputs();
      emulator().faults.set([{ endpoints: "routes/create", dropRate: 1, times: 1 }]);
      emulator().requests.clear();
      const { id } = await routeProvider.create(wanted);
      const held = emulator().state.routes.filter((r) => r.domainId === domainId && r.name === wanted.name);
      expect(held.map((r) => String(r.id))).toEqual([id]);
      expect(emulator().requests.all().map(endpointAndFault)).toEqual([
        "routes/create:drop",
        "routes/list",
        "routes/create",
      ]);
    });
  });

  it("reads a route deleted outside Pulumi as gone", async () => {
    const { id, outs } = await routeProvider.create(inputs());
    await clientFor(emulator()).deleteRoute(Number(id));
    expect(await routeProvider.read(id, outs)).toEqual({ id: undefined, props: {} });
  });

  it("reads a route as gone when its domain was deleted, and deletes it without error", async () => {
    const client = clientFor(emulator());
    const { domain } = await client.createDomain(uniqueDomain("doomed"));
    const { id, outs } = await routeProvider.create(inputs({ domainId: domain.id }));
    await client.deleteDomain(domain.id);
    expect(await routeProvider.read(id, outs)).toEqual({ id: undefined, props: {} });
    await expect(routeProvider.delete(id, outs)).resolves.toBeUndefined();
  });

  it("never reads a route as gone on an auth failure", async () => {
    const { id, outs } = await routeProvider.create(inputs());
    await configureFor(emulator(), [routeProvider], "WrongKey0000000000000001");
    expect(await failure(routeProvider.read(id, outs))).toMatchObject({ kind: "auth" });
  });

  describe("a route that already exists", () => {
    it("is never claimed without adopt, even when identical: the service refuses the create, and it is left as it is", async () => {
      const wanted = inputs();
      const existing = await clientFor(emulator()).createRoute(wanted);
      const before = structuredClone(emulator().state.routes.find((r) => r.id === existing.route.id));
      emulator().requests.clear();
      const error = await failure(routeProvider.create(wanted));
      expect(error.message).toBe(
        `Route "${wanted.name}" already exists on domain ${domainId} (id ${existing.route.id}) and this stack did not create it: ` +
          "another Route resource (in this program or another stack) may declare it, or an earlier run stopped before recording it. " +
          "Nothing was changed. Either set `adopt: true` to manage it here (only if nothing else does), " +
          "or delete it on the service and run `pulumi up` again.",
      );
      // The create, refused (it changed nothing), then the list that names the holder.
      expect(
        emulator()
          .requests.all()
          .map((e) => [e.endpoint, changed(e)]),
      ).toEqual([
        ["routes/create", undefined],
        ["routes/list", undefined],
      ]);
      expect(
        emulator().state.routes.filter((r) => r.domainId === domainId && r.name === wanted.name),
      ).toEqual([before]);
    });

    it("fails when it differs, saying how", async () => {
      const wanted = inputs();
      const existing = await clientFor(emulator()).createRoute({ ...wanted, endpointId: 3, mode: "Hold" });
      const error = await failure(routeProvider.create(wanted));
      expect(error.message).toContain(
        `Route "${wanted.name}" already exists on domain ${domainId} (id ${existing.route.id}) and this stack did not create it`,
      );
      expect(error.message).toContain(
        "It differs from this resource: endpointId is 3 (here 1), mode is Hold (here Endpoint).",
      );
    });

    it("two resources declaring one route never share it: the second fails, and deleting the first leaves nothing shared", async () => {
      const wanted = inputs();
      const first = await routeProvider.create(wanted);
      await failure(routeProvider.create(wanted));
      await routeProvider.delete(first.id, first.outs);
      expect((await clientFor(emulator()).listRoutes()).some((r) => r.name === wanted.name)).toBe(false);
    });

    it("is taken over and changed to match with adopt", async () => {
      const wanted = inputs({ adopt: true });
      const existing = await clientFor(emulator()).createRoute({
        ...wanted,
        endpointId: 3,
        spamMode: "Fail",
      });
      emulator().requests.clear();
      const { id, outs } = await routeProvider.create(wanted);
      expect(id).toBe(String(existing.route.id));
      expect(outs).toMatchObject({ endpointId: 1, spamMode: "Mark", adopt: true });
      expect(emulator().requests.counts()).toEqual({ "routes/list": 1, "routes/update": 1 });
    });
  });
});

describe("routeProvider reading Postal's return-path route", () => {
  it("keeps it: it belongs to no domain (domain_id null), so no domain's absence makes it gone", async () => {
    const route = { id: 5, uuid: "rp", name: "__returnpath__", domain_id: null, endpoint_id: 2 };
    const server = await startScriptedServer([
      { status: 200, body: envelope([route]) }, // routes/list
      { status: 200, body: envelope([]) }, // domains/list
    ]);
    try {
      await configureForUrl(server.url, [routeProvider]);
      const state = {
        name: "__returnpath__",
        domainId: 4,
        endpointId: 2,
        mode: "Endpoint",
        spamMode: "Mark",
        adopt: false,
      };
      const read = await routeProvider.read("5", state);
      expect(read.id).toBe("5");
      expect(read.props).toMatchObject({ name: "__returnpath__", endpointId: 2 });
    } finally {
      forgetConfig();
      await server.close();
    }
  });
});

describe("routeProvider against a service that clears the endpoint of a non-delivering route", () => {
  it("keeps the requested endpoint, so the next preview sees no change", async () => {
    const route = {
      id: 9,
      uuid: "u",
      name: "hold",
      domain_id: 4,
      endpoint_id: null,
      mode: "Hold",
      spam_mode: "Mark",
    };
    // Answers by path: the read sends its two lists at once, in no set order.
    const answers: Record<string, string> = {
      "/api/v1/routes/create": envelope(route),
      "/api/v1/routes/list": envelope([route]),
      "/api/v1/domains/list": envelope([{ id: 4, uuid: "d", name: "x.example.com" }]),
    };
    const received: string[] = [];
    const server = await listenOnLoopback(
      http.createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          received.push(req.url ?? "");
          res.writeHead(answers[req.url ?? ""] ? 200 : 404);
          res.end(answers[req.url ?? ""] ?? "");
        });
      }),
    );
    try {
      await configureForUrl(server.url, [routeProvider]);
      const wanted = {
        name: "hold",
        domainId: 4,
        endpointId: 2,
        mode: "Hold",
        spamMode: "Mark",
        adopt: false,
      };
      const { outs } = await routeProvider.create(wanted);
      expect(outs.endpointId).toBe(2);
      expect(received).toEqual(["/api/v1/routes/create"]); // no list before the create
      const read = await routeProvider.read("9", outs);
      expect(read.props).toMatchObject({ endpointId: 2, mode: "Hold" });
      expect(await routeProvider.diff("9", read.props, wanted)).toMatchObject({ changes: false });
    } finally {
      forgetConfig();
      await server.close();
    }
  });
});
