import { domainProvider, routeProvider } from "../../provider/dynamic";
import { domainAnswerLost, routeAnswerLost } from "../support/answer-lost";
import { forgetConfig } from "../../provider/dynamic/configured";
import { configureForUrl, failure } from "../support/providers";
import { envelope, startScriptedServer } from "../support/scripted-server";

/** The paths a scripted server received, without the API prefix. */
const paths = (received: { path: string }[]) => received.map((r) => r.path.replace("/api/v1/", ""));

/**
 * A busy service shared with another stack. This call sends its create and the connection drops
 * before the request reached the service (nothing was made). Meanwhile the other stack creates the
 * same name. The list after the lost answer then finds the other stack's object, which looks
 * exactly like what this call's create would have made: nothing tells them apart (no idempotency
 * key), so it is never claimed, changed or deleted, and the create fails naming it.
 */
describe("a lost create that never arrived, while another stack creates the same name", () => {
  afterEach(() => forgetConfig());

  const name = "race.example.com";
  const route = { id: 3, uuid: "r-3", name: "inbox", domain_id: 7, endpoint_id: 1 };

  it.each([
    ["long before", "2026-01-01T00:00:00Z"],
    // Made during this call, with a route added at once: no clock tells it from what ours made.
    ["a moment ago", new Date().toISOString()],
  ])(
    "the domain provider fails naming the other stack's domain (made %s), and sends no delete and no second create",
    async (_when, createdAt) => {
      const theirs = { id: 7, uuid: "u-7", name, created_at: createdAt };
      const server = await startScriptedServer([
        { drop: true }, // domains/create: dropped before the service handled it
        { status: 200, body: envelope([theirs]) }, // domains/list (lookup): the other stack's domain
        { status: 200, body: envelope([route]) }, // routes/list, if sent
        { status: 200, body: envelope({}) }, // domains/delete, if sent
      ]);
      try {
        await configureForUrl(server.url, [domainProvider, routeProvider]);
        const error = await failure(domainProvider.create({ name, adopt: false, __provider: "text" }));
        expect(error.message).toBe(domainAnswerLost(name, 7, createdAt));
        expect(paths(server.received)).toEqual(["domains/create", "domains/list"]);
        expect(JSON.parse(server.received[0].body)).toEqual({ name });
      } finally {
        await server.close();
      }
    },
  );

  it("the domain provider fails naming the other stack's domain when it lands after the lookup and refuses the resend", async () => {
    // The list after the lost answer shows the name free; the create sent again is refused, since the
    // other stack (or this call's own first create, arriving late) took the name meanwhile.
    const theirs = { id: 7, uuid: "u-7", name, created_at: "2026-01-01T00:00:00Z" };
    const server = await startScriptedServer([
      { drop: true }, // domains/create
      { status: 200, body: envelope([]) }, // domains/list (lookup): nothing of that name yet
      {
        status: 200,
        body: envelope({ code: "ValidationError", message: "Name is already added" }, "error"),
      }, // domains/create, sent again: refused
      { status: 200, body: envelope([theirs]) }, // domains/list: names the holder
      { status: 200, body: envelope({}) }, // domains/delete, if sent
    ]);
    try {
      await configureForUrl(server.url, [domainProvider, routeProvider]);
      const error = await failure(domainProvider.create({ name, adopt: false, __provider: "text" }));
      expect(error.message).toBe(domainAnswerLost(name, 7, theirs.created_at));
      expect(paths(server.received)).toEqual([
        "domains/create",
        "domains/list",
        "domains/create",
        "domains/list",
      ]);
    } finally {
      await server.close();
    }
  });

  const wanted = {
    name: "inbox",
    domainId: 3,
    endpointId: 1,
    mode: "Endpoint",
    spamMode: "Mark",
    adopt: false,
  };
  // Identical to what this call asks for: another stack declaring the same route makes the same one.
  const identical = {
    id: 11,
    uuid: "r-11",
    name: "inbox",
    domain_id: 3,
    endpoint_id: 1,
    mode: "Endpoint",
    spam_mode: "Mark",
  };

  it("the route provider never takes a route found after its lost create for its own, even one identical to the request", async () => {
    const server = await startScriptedServer([
      { drop: true }, // routes/create: dropped before the service handled it
      { status: 200, body: envelope([identical]) }, // routes/list (lookup)
      { status: 200, body: envelope(identical) }, // routes/update or routes/delete, if sent
    ]);
    try {
      await configureForUrl(server.url, [domainProvider, routeProvider]);
      const error = await failure(routeProvider.create(wanted));
      expect(error.message).toBe(routeAnswerLost("inbox", 3, 11));
      expect(paths(server.received)).toEqual(["routes/create", "routes/list"]);
    } finally {
      await server.close();
    }
  });

  it("the route provider fails naming the other stack's route when it lands after the lookup and refuses the resend", async () => {
    const server = await startScriptedServer([
      { drop: true }, // routes/create
      { status: 200, body: envelope([]) }, // routes/list (lookup): nothing of that name yet
      {
        status: 200,
        body: envelope({ code: "RouteAlreadyExists", message: "Route already exists" }, "error"),
      }, // routes/create, sent again: refused
      { status: 200, body: envelope([identical]) }, // routes/list: names the holder
      { status: 200, body: envelope(identical) }, // routes/update or routes/delete, if sent
    ]);
    try {
      await configureForUrl(server.url, [domainProvider, routeProvider]);
      const error = await failure(routeProvider.create(wanted));
      expect(error.message).toBe(routeAnswerLost("inbox", 3, 11));
      expect(paths(server.received)).toEqual([
        "routes/create",
        "routes/list",
        "routes/create",
        "routes/list",
      ]);
    } finally {
      await server.close();
    }
  });
});

describe("create answers that do not fit the request", () => {
  afterEach(() => forgetConfig());

  it("an answer to domains/create that names another domain is not taken as this call's domain: it lists, then creates again", async () => {
    // A desynchronised keep-alive connection or a caching proxy hands back another request's answer.
    const other = { id: 7, uuid: "u-7", name: "someone-else.example.com", created_at: null, dns_records: [] };
    const records = [{ purpose: "spf", type: "TXT", name: "mine.example.com", value: "v=spf1 a mx ~all" }];
    const mine = { id: 8, uuid: "u-8", name: "mine.example.com", created_at: null, dns_records: records };
    const server = await startScriptedServer([
      { status: 200, body: envelope(other) }, // domains/create: someone else's domain
      { status: 200, body: envelope([other]) }, // domains/list (lookup): none of this call's name
      { status: 200, body: envelope(mine) }, // domains/create, sent again
    ]);
    try {
      await configureForUrl(server.url, [domainProvider, routeProvider]);
      const { id, outs } = await domainProvider.create({
        name: "mine.example.com",
        adopt: false,
        __provider: "text",
      });
      // Recording id 7 makes a later destroy delete someone-else.example.com.
      expect(id).toBe("8");
      expect(outs).toMatchObject({ domainId: 8, name: "mine.example.com" });
      expect(paths(server.received)).toEqual(["domains/create", "domains/list", "domains/create"]);
    } finally {
      await server.close();
    }
  });

  it("a readable create answer without dns_records fails at once, saying so, leaving nothing behind", async () => {
    // tuhinhossain/postal answers create flat (dkim_record, spf_record, …), with no dns_records.
    const name = "flat.example.com";
    const created = { id: 5, uuid: "u-5", name, created_at: null, spf_record: "v=spf1 ~all" };
    const server = await startScriptedServer([
      { status: 200, body: envelope(created) }, // domains/create
      { status: 200, body: envelope({ id: 5, name }) }, // domains/delete
    ]);
    try {
      await configureForUrl(server.url, [domainProvider, routeProvider]);
      const error = await failure(domainProvider.create({ name, adopt: false, __provider: "text" }));
      expect(error.message).toContain("its answer carried no DNS records");
      expect(paths(server.received)).toEqual(["domains/create", "domains/delete"]);
      expect(JSON.parse(server.received[1].body)).toMatchObject({ id: 5 });
    } finally {
      await server.close();
    }
  });
});
