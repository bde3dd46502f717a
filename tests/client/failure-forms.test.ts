import * as net from "node:net";
import {
  AttemptRecord,
  createClient,
  EmailApiError,
  isAnswerLostObjectExists,
  isNameTaken,
} from "../../provider/client";
import { envelope, Script, startScriptedServer } from "../support/scripted-server";

/**
 * Failure forms that other deployments and networks produce (forks answering 4xx/5xx, proxies
 * answering HTML, dropped connections, silence), over real HTTP on 127.0.0.1.
 */
const KEY = "ScriptedKey0000000000001";

async function run(
  scripts: Script[],
  call: (client: ReturnType<typeof createClient>) => Promise<unknown>,
  requestTimeoutMs = 2000,
) {
  const server = await startScriptedServer(scripts);
  const attempts: AttemptRecord[] = [];
  const client = createClient({
    baseUrl: server.url,
    apiKey: KEY,
    requestTimeoutMs,
    retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 },
    onAttempt: (attempt) => attempts.push(attempt),
  });
  try {
    const value: { result?: unknown; error?: EmailApiError } = await call(client).then(
      (result) => ({ result }),
      (error: unknown) => ({ error: error as EmailApiError }),
    );
    return { ...value, attempts, received: server.received };
  } finally {
    await server.close();
  }
}

const domainJson = {
  id: 7,
  uuid: "u-7",
  name: "example.com",
  spf_status: "OK",
  dkim_status: null,
  mx_status: "Missing",
  return_path_status: "Surprising",
  created_at: "2026-01-01T00:00:00Z",
  extra: { ignored: true },
};

describe("failure forms over the wire", () => {
  it("sends the spec's headers and body", async () => {
    const { received } = await run([{ status: 200, body: envelope({ id: 1 }) }], (c) =>
      c.checkDomain(1).catch(() => undefined),
    );
    expect(received[0].path).toBe("/api/v1/domains/check");
    expect(received[0].headers["x-server-api-key"]).toBe(KEY);
    expect(received[0].headers["content-type"]).toBe("application/json");
    expect(JSON.parse(received[0].body)).toEqual({ id: 1 });
  });

  it("parses leniently: unknown fields dropped, unknown statuses kept, wrapped lists unwrapped", async () => {
    const { result } = await run([{ status: 200, body: envelope({ domains: [domainJson] }) }], (c) =>
      c.listDomains(),
    );
    expect(result).toEqual([
      {
        id: 7,
        uuid: "u-7",
        name: "example.com",
        spfStatus: "OK",
        dkimStatus: null,
        mxStatus: "Missing",
        returnPathStatus: "Surprising",
        createdAt: "2026-01-01T00:00:00Z",
      },
    ]);
  });

  it("reports an answer of the wrong shape as validation, naming the field", async () => {
    const { error } = await run([{ status: 200, body: envelope([{ name: "x" }]) }], (c) => c.listDomains());
    expect(error).toMatchObject({ kind: "validation" });
    expect(error!.message).toContain("0.id");
  });

  it.each<[string, Script, string, number | undefined]>([
    [
      "a fork's 404 JSON",
      { status: 404, body: JSON.stringify({ error: "Domain not found" }) },
      "not-found",
      404,
    ],
    [
      "a fork's 422 JSON",
      { status: 422, body: JSON.stringify({ status: "error", message: "Name is invalid" }) },
      "validation",
      422,
    ],
    ["a 401 without a body", { status: 401, body: "" }, "auth", 401],
    ["a 409 JSON", { status: 409, body: JSON.stringify({ error: "exists" }) }, "conflict", 409],
  ])("maps %s without retrying", async (_label, script, kind, httpStatus) => {
    const { error, attempts } = await run([script], (c) => c.deleteDomain(1));
    expect(error).toMatchObject({ kind, httpStatus });
    expect(attempts).toHaveLength(1);
  });

  it.each<[string, Script]>([
    ["a proxy's 502 page", { status: 502, body: "<html><h1>Bad Gateway</h1></html>" }],
    [
      "a 500 JSON error",
      {
        status: 500,
        body: JSON.stringify({ status: "error", data: { code: "InternalServerError", message: "boom" } }),
      },
    ],
    ["a dropped connection", { drop: true }],
  ])("retries %s, then succeeds", async (_label, script) => {
    const { result, attempts } = await run([script, script, { status: 200, body: envelope([]) }], (c) =>
      c.listDomains(),
    );
    expect(result).toEqual([]);
    expect(attempts.map((a) => a.outcome)).toEqual(["transient", "transient", "ok"]);
  });

  it("does not retry a 200 web page (a wrong base URL), and takes a 204 to a delete as done", async () => {
    const page = await run([{ status: 200, body: "<html>welcome</html>" }], (c) => c.listDomains());
    expect(page.error).toMatchObject({ kind: "validation", httpStatus: 200 });
    expect(page.attempts).toHaveLength(1);
    const deleted = await run([{ status: 204, body: "" }], (c) => c.deleteRoute(1));
    expect(deleted.error).toBeUndefined();
  });

  it("cuts a request short at the end of the time budget", async () => {
    const server = await startScriptedServer([{ hang: true }]);
    const client = createClient({
      baseUrl: server.url,
      apiKey: KEY,
      requestTimeoutMs: 20_000,
      retry: { budgetMs: 300 },
    });
    const started = Date.now();
    const error = await client.listDomains().catch((e: EmailApiError) => e);
    const elapsed = Date.now() - started;
    await server.close();
    expect(error).toMatchObject({ kind: "transient", code: "ETIMEDOUT", attempts: 1 });
    expect(elapsed).toBeLessThan(5000); // far below the 20 s request timeout
  });

  it("gives up after the attempt cap with a transient error that counts the attempts", async () => {
    const { error, attempts } = await run([{ status: 503, body: "down" }], (c) => c.listDomains());
    expect(error).toMatchObject({ kind: "transient", httpStatus: 503, attempts: 4 });
    expect(error!.message).toContain("after 4 attempts");
    expect(attempts).toHaveLength(4);
  });

  it("times out a silent server and says so", async () => {
    const { error, attempts } = await run([{ hang: true }], (c) => c.listDomains(), 100);
    expect(error).toMatchObject({ kind: "transient", code: "ETIMEDOUT" });
    expect(error!.serviceMessage).toMatch(/no answer from http:\/\/127\.0\.0\.1:\d+\/ within 100 ms/);
    expect(attempts).toHaveLength(4);
  });

  it("reports a refused connection as transient, without a key in the text", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const client = createClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: KEY,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const error = await client.listDomains().catch((e: EmailApiError) => e);
    expect(error).toMatchObject({ kind: "transient", code: "ECONNREFUSED", attempts: 2 });
    expect(JSON.stringify({ m: (error as Error).message, s: (error as Error).stack })).not.toContain(KEY);
  });

  it("never resends a message whose answer was lost", async () => {
    const { error, received } = await run([{ drop: true }], (c) =>
      c.sendMessage({ from: "a@example.com", to: ["b@example.org"], plainBody: "x" }),
    );
    expect(error).toMatchObject({ kind: "transient", outcomeUnknown: true, attempts: 1 });
    expect(error!.message).toContain("may or may not have been applied");
    expect(received).toHaveLength(1);
  });

  it("resends a message refused with 429 (nothing was done), honouring Retry-After", async () => {
    const started = Date.now();
    const { result, received } = await run(
      [
        { status: 429, body: "slow down", headers: { "Retry-After": "1" } },
        { status: 200, body: envelope({ message_id: "m1", messages: {} }) },
      ],
      (c) => c.sendMessage({ from: "a@example.com", to: ["b@example.org"], plainBody: "x" }),
    );
    expect(result).toEqual({ messageId: "m1", messages: {} });
    expect(received).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it("counts 429s against the time budget, not the attempt cap: a 429 proves nothing was done", async () => {
    const tooMany = { status: 429, body: "slow down", headers: { "Retry-After": "0" } };
    const unavailable = { status: 503, body: "" };
    const { result, error, received } = await run(
      [
        ...Array<Script>(5).fill(tooMany),
        unavailable,
        tooMany,
        unavailable,
        unavailable,
        { status: 200, body: envelope([domainJson]) },
      ],
      (c) => c.listDomains(),
    );
    expect(error).toBeUndefined();
    expect(result).toHaveLength(1);
    // maxAttempts is 4: three 503s and the success count, the six 429s do not
    expect(received).toHaveLength(10);
  });

  it("gives up at once when Retry-After is beyond the budget", async () => {
    const server = await startScriptedServer([{ status: 429, body: "", headers: { "Retry-After": "120" } }]);
    const client = createClient({ baseUrl: server.url, apiKey: KEY, retry: { budgetMs: 5000 } });
    const error = await client.listDomains().catch((e: EmailApiError) => e);
    await server.close();
    expect(error).toMatchObject({ kind: "transient", httpStatus: 429, attempts: 1, retryAfterMs: 120000 });
  });

  it("reads a route back when update's answer is not a route", async () => {
    const route = {
      id: 3,
      uuid: "r",
      name: "a",
      domain_id: 1,
      endpoint_id: 2,
      mode: "Accept",
      spam_mode: "Mark",
    };
    const { result, received } = await run(
      [
        { status: 200, body: envelope({ message: "updated" }) },
        { status: 200, body: envelope([route]) },
      ],
      (c) => c.updateRoute({ id: 3, name: "a" }),
    );
    expect(result).toEqual({
      id: 3,
      uuid: "r",
      name: "a",
      domainId: 1,
      endpointId: 2,
      mode: "Accept",
      spamMode: "Mark",
    });
    expect(received.map((r) => r.path)).toEqual(["/api/v1/routes/update", "/api/v1/routes/list"]);
  });

  describe("a create whose answer was lost", () => {
    // Made by the lost request, or by another party meanwhile: nothing tells which.
    const created = { ...domainJson, name: "lost.example.com", created_at: new Date().toISOString() };
    // A list with no object of the key.
    const free = { status: 200, body: envelope([]) };
    const alreadyAdded = {
      status: 200,
      body: envelope({ code: "ValidationError", message: "Name is already added" }, "error"),
    };
    const paths = (received: { path: string }[]) => received.map((r) => r.path.replace("/api/v1/", ""));
    /** The failure for an object found after a lost answer: named, never taken for this call's. */
    const answerLost = (id: number, extra: object = {}) => ({
      kind: "conflict",
      code: "AnswerLostObjectExists",
      existing: { id },
      outcomeUnknown: true,
      ...extra,
    });

    it("creates without listing first, and takes a readable answer as its own", async () => {
      const { result, received } = await run(
        [{ status: 200, body: envelope({ ...created, dns_records: [] }) }],
        (c) => c.createDomain("lost.example.com"),
      );
      expect(result).toMatchObject({ domain: { id: 7, name: "lost.example.com" } });
      expect(result).not.toHaveProperty("recovered");
      expect(paths(received)).toEqual(["domains/create"]);
      expect(JSON.parse(received[0].body)).toEqual({ name: "lost.example.com" });
    });

    it("looks again after a failed lookup, and fails naming what it finds instead of taking it", async () => {
      const { result, error, received, attempts } = await run(
        [{ drop: true }, { status: 503, body: "busy" }, { status: 200, body: envelope([created]) }],
        (c) => c.createDomain("lost.example.com"),
      );
      expect(result).toBeUndefined();
      expect(error).toMatchObject(
        answerLost(7, {
          operation: "domains/create",
          attempts: 3,
          existing: { id: 7, createdAt: created.created_at },
        }),
      );
      expect(isAnswerLostObjectExists(error)).toBe(true);
      expect(error!.message).toContain("the answer to create was lost");
      expect(error!.message).toContain("now exists");
      expect(paths(received)).toEqual(["domains/create", "domains/list", "domains/list"]);
      expect(attempts.map((a) => `${a.operation}:${a.outcome}`)).toEqual([
        "domains/create:transient",
        "domains/list:transient",
        "domains/list:ok",
      ]);
    });

    it("sends again when the lookup finds nothing, and takes the resend's answer as its own", async () => {
      const { result, received } = await run(
        [{ drop: true }, free, { status: 200, body: envelope({ ...created, dns_records: [] }) }],
        (c) => c.createDomain("lost.example.com"),
      );
      expect(result).toMatchObject({ domain: { id: 7, name: "lost.example.com" }, dnsRecords: [] });
      expect(paths(received)).toEqual(["domains/create", "domains/list", "domains/create"]);
    });

    it("fails naming the holder when the resend is refused as a duplicate: the lost request's or another's", async () => {
      const { error, received } = await run(
        [{ drop: true }, free, alreadyAdded, { status: 200, body: envelope([created]) }],
        (c) => c.createDomain("lost.example.com"),
      );
      expect(error).toMatchObject(answerLost(7, { attempts: 4 }));
      expect(paths(received)).toEqual(["domains/create", "domains/list", "domains/create", "domains/list"]);
    });

    it("reports a name the service refuses as validation, naming no holder, when no answer was lost", async () => {
      const { error, received } = await run([alreadyAdded], (c) => c.createDomain("taken.example.com"));
      expect(error).toMatchObject({
        kind: "validation",
        serviceMessage: "Name is already added",
        attempts: 1,
      });
      expect(error!.existing).toBeUndefined();
      expect(error!.outcomeUnknown).toBeUndefined();
      expect(isNameTaken(error)).toBe(true);
      expect(isAnswerLostObjectExists(error)).toBe(false);
      expect(paths(received)).toEqual(["domains/create"]);
    });

    it("counts lookups against the attempt cap", async () => {
      const { error, received } = await run([{ drop: true }, free, { status: 500, body: "" }], (c) =>
        c.createDomain("lost.example.com"),
      );
      expect(paths(received)).toEqual(["domains/create", "domains/list", "domains/create", "domains/list"]);
      expect(error).toMatchObject({
        operation: "domains/create",
        kind: "transient",
        attempts: 4,
        outcomeUnknown: true,
      });
    });

    it("reports a lookup's non-transient failure as the create's, with the outcome unknown", async () => {
      const { error, received } = await run(
        [
          { drop: true },
          {
            status: 200,
            body: envelope({ code: "AccessDenied", message: "Must be authenticated as a server." }, "error"),
          },
        ],
        (c) => c.createDomain("lost.example.com"),
      );
      expect(error).toMatchObject({
        operation: "domains/create",
        kind: "auth",
        outcomeUnknown: true,
        attempts: 2,
      });
      expect(paths(received)).toEqual(["domains/create", "domains/list"]);
    });

    it.each([
      ["cut short", '{"status":"success","time":0.1,"data":{"id":7,"name":"lost.exa'],
      ["a proxy's HTML page", "<html><body>Bad gateway</body></html>"],
      ["JSON that is not the envelope", '{"ok":true}'],
    ])(
      "treats a 2xx create answer %s as an unknown outcome, and claims nothing it finds",
      async (_form, body) => {
        const { result, error, received } = await run(
          [
            { status: 200, body },
            { status: 200, body: envelope([created]) },
          ],
          (c) => c.createDomain("lost.example.com"),
        );
        expect(result).toBeUndefined();
        expect(error).toMatchObject(answerLost(7, { attempts: 2 }));
        expect(paths(received)).toEqual(["domains/create", "domains/list"]);
      },
    );

    it("says to check the base URL when a read is answered 2xx with something else, without retrying", async () => {
      const { error, received } = await run([{ status: 200, body: "<html>Welcome to nginx</html>" }], (c) =>
        c.listDomains(),
      );
      expect(error).toMatchObject({ kind: "validation", attempts: 1 });
      expect(error!.message).toContain("is the base URL right?");
      expect(received).toHaveLength(1);
    });

    it("never takes a route found after a lost answer, even one identical to the request", async () => {
      const route = (endpointId: number) => ({
        id: 3,
        uuid: "r",
        name: "INBOX",
        domain_id: 1,
        endpoint_id: endpointId,
        mode: "Endpoint",
        spam_mode: "Mark",
      });
      // Another stack declaring the same route would have made this very one.
      for (const endpointId of [2, 9]) {
        const { result, error, received } = await run(
          [{ drop: true }, { status: 200, body: envelope([route(endpointId)]) }],
          (c) => c.createRoute({ name: "inbox", domainId: 1, endpointId: 2 }),
        );
        expect(result).toBeUndefined();
        expect(error).toMatchObject(
          answerLost(3, { operation: "routes/create", existing: { id: 3, createdAt: null } }),
        );
        expect(paths(received)).toEqual(["routes/create", "routes/list"]);
      }
    });

    it("names the route holding the name when the resend is refused, and keeps the refusal when none is listed", async () => {
      const refused = {
        status: 200,
        body: envelope(
          { code: "RouteAlreadyExists", message: "Route already exists", status: "conflict" },
          "error",
        ),
      };
      const route = { id: 3, uuid: "r", name: "inbox", domain_id: 1, endpoint_id: 9 };
      const named = await run(
        [{ drop: true }, free, refused, { status: 200, body: envelope([route]) }],
        (c) => c.createRoute({ name: "inbox", domainId: 1, endpointId: 2 }),
      );
      expect(named.error).toMatchObject(answerLost(3, { attempts: 4 }));
      // The route of that name is on another server (same domain name there): none of this key listed.
      const elsewhere = await run([{ drop: true }, free, refused, free], (c) =>
        c.createRoute({ name: "inbox", domainId: 1, endpointId: 2 }),
      );
      expect(elsewhere.error).toMatchObject({
        kind: "conflict",
        code: "RouteAlreadyExists",
        outcomeUnknown: true,
      });
      expect(elsewhere.error!.existing).toBeUndefined();
      for (const { received } of [named, elsewhere]) {
        expect(paths(received)).toEqual(["routes/create", "routes/list", "routes/create", "routes/list"]);
      }
    });

    it("sends the route create without listing first; a refusal names no holder", async () => {
      const { error, received } = await run(
        [
          {
            status: 200,
            body: envelope(
              { code: "RouteAlreadyExists", message: "Route already exists", status: "conflict" },
              "error",
            ),
          },
        ],
        (c) => c.createRoute({ name: "inbox", domainId: 1, endpointId: 2 }),
      );
      expect(error).toMatchObject({ kind: "conflict", code: "RouteAlreadyExists", attempts: 1 });
      expect(error!.existing).toBeUndefined();
      expect(error!.outcomeUnknown).toBeUndefined();
      expect(paths(received)).toEqual(["routes/create"]);
    });

    it("treats a delete that finds nothing after a lost answer as done", async () => {
      const { result, error, received } = await run(
        [
          { drop: true },
          { status: 200, body: envelope({ code: "RouteNotFound", message: "No route with id 4" }, "error") },
        ],
        (c) => c.deleteRoute(4),
      );
      expect(error).toBeUndefined();
      expect(result).toBeUndefined();
      expect(received).toHaveLength(2);
    });
  });
});

describe("a fallback API key (a rotated key)", () => {
  const ROTATED = "RotatedKey00000000000001";
  const listWith = async (refusal: Script) => {
    const server = await startScriptedServer([refusal, { status: 200, body: envelope([]) }]);
    try {
      const client = createClient({
        baseUrl: server.url,
        apiKey: KEY,
        fallbackApiKey: ROTATED,
        retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
      });
      const outcome = await client.listDomains().then(
        () => "listed",
        (error: EmailApiError) => error.code ?? error.kind,
      );
      return { outcome, keys: server.received.map((r) => r.headers["x-server-api-key"]) };
    } finally {
      await server.close();
    }
  };

  it("is tried once the service says the key is not valid, and not before", async () => {
    const refused = envelope(
      { code: "InvalidServerAPIKey", message: "The API token provided was not valid." },
      "error",
    );
    expect(await listWith({ status: 200, body: refused })).toEqual({
      outcome: "listed",
      keys: [KEY, ROTATED],
    });
    expect(await listWith({ status: 401, body: "" })).toEqual({ outcome: "listed", keys: [KEY, ROTATED] });
  });

  it("is not tried on refusals that say nothing of the key (a suspended server, a proxy's 403)", async () => {
    const suspended = envelope({ code: "ServerSuspended" }, "error");
    expect(await listWith({ status: 200, body: suspended })).toEqual({
      outcome: "ServerSuspended",
      keys: [KEY],
    });
    expect(await listWith({ status: 403, body: "<html>Forbidden</html>" })).toEqual({
      outcome: "auth",
      keys: [KEY],
    });
  });
});
