import * as http from "node:http";
import fc from "fast-check";
import { useEmulator } from "../support/emulator";

/**
 * The email API emulator over generated requests (issue 5 §3): random JSON, non-JSON, huge and
 * wrong-typed bodies, form and query `params`, to every endpoint, with valid, wrong, missing and
 * differently-cased keys. It never crashes (it still answers afterwards) and always answers in
 * Postal's envelope (HTTP 200, `{status, time, flags, data}`), except the Rails pages documented in
 * emulator/email-api/service.ts:
 * - 404 `Not Found` for an unknown path or an unrouted method (before the body is looked at);
 * - 400 `Bad Request` for malformed JSON under a JSON content type (before authentication);
 * - 413 for a body over the limit (16 MiB);
 * - 500 for Postal's crash cases only: a `params` form/query field that is not JSON, once
 *   authenticated (Postal's own `JSON.parse` raises), and a value too long for a `varchar(255)`
 *   column (MySQL strict mode). Which crash it was is read from the stack the emulator prints.
 */

const API_KEY = "PropApiKey0123456789abcd";
const MASTER_KEY = "PropMasterKey0123456789abcdefghij";

const emulator = useEmulator({ apiKey: API_KEY, masterKey: MASTER_KEY, dns: { dkimKeyBits: 1024 } });

const ENDPOINTS = [
  "domains/list",
  "domains/create",
  "domains/check",
  "domains/delete",
  "routes/list",
  "routes/create",
  "routes/update",
  "routes/delete",
  "send/message",
  "server/create",
] as const;

/** Lines the emulator printed for handler crashes (`[emulator:email-api] <stack>`). */
let crashes: string[] = [];
let restoreStderr: () => void = () => undefined;
beforeAll(() => {
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    if (text.startsWith("[emulator:")) {
      crashes.push(text);
      return true;
    }
    return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  restoreStderr = () => (process.stderr.write = original as typeof process.stderr.write);
});
afterAll(() => restoreStderr());

interface Request {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** One request over a fresh connection to the emulator on 127.0.0.1 (any method may carry a body). */
function send(request: Request): Promise<Answer> {
  const url = new URL(request.path, emulator().emailApi.url);
  if (url.hostname !== "127.0.0.1") throw new Error(`refusing to send to ${url.hostname}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: request.method,
        agent: false,
        headers: { ...request.headers, "content-length": String(request.body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers["content-type"] ?? ""),
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(request.body);
  });
}

// ---- generators ---------------------------------------------------------------------------------

/** Parameter names the endpoints read, plus near-misses. */
const FIELDS = [
  "id",
  "name",
  "domain_id",
  "endpoint_id",
  "mode",
  "spam_mode",
  "to",
  "cc",
  "bcc",
  "from",
  "sender",
  "reply_to",
  "subject",
  "tag",
  "plain_body",
  "html_body",
  "headers",
  "attachments",
  "__proto__",
  "constructor",
  "Name",
  "ID",
];

/** Values of every JSON type, aimed at the endpoints' parameters: ids, names, addresses, lists. */
const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer({ min: -2, max: 20 }),
  fc.constantFrom(
    0,
    1,
    2,
    1.5,
    -1,
    1e300,
    "1",
    "01",
    " 1",
    "99999999999999999999999",
    1e20,
    "",
    " ",
    null,
    true,
    [],
    {},
  ),
  fc.constantFrom(
    "Endpoint",
    "Hold",
    "Bounce",
    "Reject",
    "Mark",
    "Quarantine",
    "Fail",
    "Live",
    "Development",
  ),
  fc.constantFrom("support", "*", "__returnpath__", "Support", "a@b", "é"),
  fc.domain(),
  fc.constantFrom("a@example.com", "Jo <jo@example.com>", "x@y", "a@b, c@d", "__proto__@example.com"),
  fc.array(fc.constantFrom<unknown>("a@example.com", 1, null, { name: "f", data: "AA==" }, { name: 1 }), {
    maxLength: 4,
  }),
  fc.nat(600).map((n) => "a".repeat(n)),
  fc.nat(300).map((n) => `${"b".repeat(n)}.example.com`),
  fc.string({ unit: "grapheme", maxLength: 40 }),
);

const randomParams: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }) },
  fc.jsonValue({ maxDepth: 2 }),
);

const smallId = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 12 }) }, value);
const localPart = fc.oneof(
  fc.stringMatching(/^[a-z0-9.-]{1,10}$/),
  fc.constantFrom("*", "__returnpath__"),
  value,
);
const address = fc.oneof(
  fc.constantFrom("a@seed1.example.com", "Jo <jo@seed2.example.com>", "x@elsewhere.example.net"),
  value,
);

/** Each endpoint's parameters, nearly right: every field may be missing or of any other value. */
const TEMPLATES: Record<(typeof ENDPOINTS)[number], fc.Arbitrary<Record<string, unknown>>> = {
  "domains/list": fc.constant({}),
  "domains/create": fc.record({ name: fc.oneof(fc.domain(), value) }, { requiredKeys: [] }),
  "domains/check": fc.record({ id: smallId }, { requiredKeys: [] }),
  "domains/delete": fc.record({ id: smallId }, { requiredKeys: [] }),
  "routes/list": fc.constant({}),
  "routes/create": fc.record(
    {
      name: localPart,
      domain_id: smallId,
      endpoint_id: smallId,
      mode: fc.oneof(fc.constantFrom("Endpoint", "Bounce", "Hold", "Reject"), value),
      spam_mode: fc.oneof(fc.constantFrom("Mark", "Quarantine", "Fail"), value),
    },
    { requiredKeys: [] },
  ),
  "routes/update": fc.record(
    {
      id: smallId,
      name: localPart,
      endpoint_id: smallId,
      mode: fc.oneof(fc.constantFrom("Endpoint", "Bounce", "Hold", "Reject"), value),
      spam_mode: fc.oneof(fc.constantFrom("Mark", "Quarantine", "Fail"), value),
    },
    { requiredKeys: [] },
  ),
  "routes/delete": fc.record({ id: smallId }, { requiredKeys: [] }),
  "send/message": fc.record(
    {
      to: fc.oneof(address, fc.array(address, { maxLength: 3 })),
      cc: fc.array(address, { maxLength: 2 }),
      from: address,
      sender: address,
      subject: value,
      plain_body: value,
      html_body: value,
      headers: fc.oneof(fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 3 }), value),
      attachments: fc.oneof(
        fc.array(
          fc.record(
            { name: value, content_type: value, data: fc.oneof(fc.base64String({ maxLength: 40 }), value) },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
        value,
      ),
    },
    { requiredKeys: [] },
  ),
  "server/create": fc.record(
    {
      name: fc.oneof(fc.string({ maxLength: 20 }), value),
      mode: fc.oneof(fc.constantFrom("Live", "Development"), value),
    },
    { requiredKeys: [] },
  ),
};

type BodyKind = "json" | "raw" | "form" | "query" | "none" | "huge";

interface Body {
  kind: BodyKind;
  contentType?: string;
  body: Buffer;
  query: string;
}

const JSON_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/jsonx",
];
const OTHER_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "",
  "application/xml",
];

const form = (text: string) => new URLSearchParams({ params: text }).toString();

const bodyFor = (params: fc.Arbitrary<unknown>): fc.Arbitrary<Body> =>
  fc.oneof(
    // JSON params under a JSON content type (or one that only starts like it).
    fc.tuple(params, fc.constantFrom(...JSON_TYPES)).map(([p, contentType]) => ({
      kind: "json" as const,
      contentType,
      body: Buffer.from(JSON.stringify(p) ?? ""),
      query: "",
    })),
    // Anything at all under any content type: broken JSON, random text, random bytes.
    fc
      .tuple(
        fc.oneof(
          fc.string({ maxLength: 60 }).map((s) => Buffer.from(s)),
          fc.string({ unit: "grapheme", maxLength: 60 }).map((s) => Buffer.from(s)),
          fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)),
          fc
            .constantFrom("{", "{'name': 1}", "nul", '{"id": 1,}', "[", '"', "\u00ff\u00fe", "{}", "[]", "1")
            .map((s) => Buffer.from(s)),
        ),
        fc.constantFrom(...JSON_TYPES, ...OTHER_TYPES),
      )
      .map(([raw, contentType]) => ({ kind: "raw" as const, contentType, body: raw, query: "" })),
    // Postal's other way in: a `params` field holding JSON (or not) in a urlencoded body.
    fc
      .tuple(
        fc.oneof(
          params.map((p) => JSON.stringify(p) ?? ""),
          fc.string({ maxLength: 30 }),
        ),
      )
      .map(([text]) => ({
        kind: "form" as const,
        contentType: "application/x-www-form-urlencoded",
        body: Buffer.from(form(text)),
        query: "",
      })),
    // …or in the query string, with or without a body.
    fc
      .tuple(
        fc.oneof(
          params.map((p) => JSON.stringify(p) ?? ""),
          fc.string({ maxLength: 30 }),
        ),
        fc.boolean(),
      )
      .map(([text, withType]) => ({
        kind: "query" as const,
        contentType: withType ? "text/plain" : undefined,
        body: Buffer.alloc(0),
        query: `?${form(text)}`,
      })),
    fc.constant({ kind: "none" as const, body: Buffer.alloc(0), query: "" }),
    // Large bodies (well under the limit; the limit itself is a separate test).
    fc
      .tuple(fc.integer({ min: 50_000, max: 400_000 }), fc.constantFrom("name", "id", "to", "plain_body"))
      .map(([size, field]) => ({
        kind: "huge" as const,
        contentType: "application/json",
        body: Buffer.from(JSON.stringify({ [field]: "x".repeat(size), from: "a@example.com" })),
        query: "",
      })),
  );

const serverKey = fc.oneof(
  { weight: 6, arbitrary: fc.constant(API_KEY) },
  fc.constantFrom(API_KEY.toLowerCase(), API_KEY.toUpperCase(), undefined, "", " "),
  fc.constantFrom("WrongKey0000000000000000", `${API_KEY} `, "x".repeat(5000)),
  fc.string({ maxLength: 30 }).filter((s) => /^[\x21-\x7e]*$/.test(s)),
);
const masterKey = fc.oneof(
  { weight: 4, arbitrary: fc.constant(MASTER_KEY) },
  fc.constantFrom(MASTER_KEY.toLowerCase(), undefined, "", "wrong-master"),
);

const method = fc.constantFrom(
  "POST",
  "POST",
  "POST",
  "POST",
  "POST",
  "POST",
  "GET",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
);

/** A request to one of the endpoints (sometimes a path that is not one), its params nearly right or random. */
const request = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.constantFrom(...ENDPOINTS).chain((endpoint) =>
      fc.record({
        method,
        path: fc.constantFrom(`/api/v1/${endpoint}`, `/api/v1/${endpoint}`, `/api/v1/${endpoint}/`),
        body: bodyFor(fc.oneof({ weight: 3, arbitrary: TEMPLATES[endpoint] }, randomParams)),
        serverKey,
        masterKey,
      }),
    ),
  },
  fc.record({
    method,
    path: fc.constantFrom(
      "/api/v1/domains/frobnicate",
      "/api/v1/",
      "/",
      "/api/v2/domains/list",
      "/api/v1/domains/list/x",
    ),
    body: bodyFor(randomParams),
    serverKey,
    masterKey,
  }),
);

// ---- the oracle ---------------------------------------------------------------------------------

const ROUTED_METHODS = ["GET", "POST", "PUT", "PATCH"];

/** The Rails page the request must get, or undefined when it must reach a controller. */
function railsPage(method: string, path: string, body: Body): number | undefined {
  const endpoint = path.replace(/^\/api\/v1\//, "").replace(/\/$/, "");
  const routed =
    path.startsWith("/api/v1/") &&
    ROUTED_METHODS.includes(method) &&
    (ENDPOINTS as readonly string[]).includes(endpoint);
  if (!routed) return 404;
  if (body.contentType?.toLowerCase().startsWith("application/json") && body.body.length > 0) {
    try {
      JSON.parse(body.body.toString("utf8"));
    } catch {
      return 400;
    }
  }
  return undefined;
}

/** Postal's two documented crashes, as the emulator's printed stack names them. */
const DOCUMENTED_CRASH = /^\[emulator:email-api\] (SyntaxError: |DatabaseError: Data too long for column)/;

const outcomes = new Map<string, number>();

async function expectInEnvelope(answer: Answer): Promise<void> {
  expect(answer.status).toBe(200);
  expect(answer.contentType).toMatch(/^application\/json/);
  const parsed = JSON.parse(answer.text) as Record<string, unknown>;
  expect(Object.keys(parsed)).toEqual(["status", "time", "flags", "data"]);
  expect(["success", "error", "parameter-error"]).toContain(parsed.status);
  expect(typeof parsed.time).toBe("number");
  expect(parsed.flags).toEqual({});
  const outcome = `${String(parsed.status)}:${String((parsed.data as { code?: string } | null)?.code ?? "")}`;
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  if (parsed.status === "error") expect(parsed.data).toMatchObject({ code: expect.any(String) });
  if (parsed.status === "parameter-error") expect(parsed.data).toEqual({ message: expect.any(String) });
}

// ---- the properties -----------------------------------------------------------------------------

const seen = new Map<number, number>();

it("answers every generated request in its envelope or a documented Rails page, and keeps answering", async () => {
  // Some existing objects, so ids 1, 2, … sometimes hit something (and may be deleted by a request).
  for (const name of ["seed1.example.com", "seed2.example.com"]) {
    const seeded = await send({
      method: "POST",
      path: "/api/v1/domains/create",
      headers: { "content-type": "application/json", "x-server-api-key": API_KEY },
      body: Buffer.from(JSON.stringify({ name })),
    });
    expect(JSON.parse(seeded.text).status).toBe("success");
  }

  await fc.assert(
    fc.asyncProperty(request, async ({ method, path, body, serverKey, masterKey }) => {
      const headers: Record<string, string> = {};
      if (body.contentType !== undefined) headers["content-type"] = body.contentType;
      if (serverKey !== undefined) headers["x-server-api-key"] = serverKey;
      if (masterKey !== undefined) headers["x-master-key"] = masterKey;
      crashes = [];
      const answer = await send({ method, path: `${path}${body.query}`, headers, body: body.body });
      seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);

      const page = railsPage(method, path, body);
      if (page === 404) expect([answer.status, answer.text]).toEqual([404, "Not Found"]);
      else if (page === 400) expect([answer.status, answer.text]).toEqual([400, "Bad Request"]);
      else if (answer.status === 500) {
        expect(answer.text).toBe("Internal Server Error");
        expect(crashes).toHaveLength(1);
        expect(crashes[0]).toMatch(DOCUMENTED_CRASH);
      } else {
        await expectInEnvelope(answer);
        expect(crashes).toEqual([]);
      }
    }),
    { numRuns: 150 },
  );

  // Still alive and answering correctly.
  const after = await send({
    method: "POST",
    path: "/api/v1/domains/list",
    headers: { "content-type": "application/json", "x-server-api-key": API_KEY },
    body: Buffer.from("{}"),
  });
  expect(JSON.parse(after.text)).toMatchObject({ status: "success", data: expect.any(Array) });
  // The run exercised envelopes and Rails pages alike.
  expect(seen.get(200)).toBeGreaterThan(50);
  expect(seen.get(404)).toBeGreaterThan(0);
  expect(seen.get(400)).toBeGreaterThan(0);
  expect(outcomes.get("success:")).toBeGreaterThan(0);
  expect([...outcomes.keys()].filter((key) => key.startsWith("error:")).length).toBeGreaterThan(2);
});

it("answers a body over 16 MiB with 413 on every endpoint's path, and keeps answering", async () => {
  const big = Buffer.alloc(16 * 1024 * 1024 + 1, "a");
  const answer = await send({
    method: "POST",
    path: "/api/v1/domains/create",
    headers: { "content-type": "application/json", "x-server-api-key": API_KEY },
    body: big,
  });
  expect(answer.status).toBe(413);
  const after = await send({
    method: "POST",
    path: "/api/v1/routes/list",
    headers: { "content-type": "application/json", "x-server-api-key": API_KEY },
    body: Buffer.from("{}"),
  });
  expect(JSON.parse(after.text)).toMatchObject({ status: "success" });
});

it.each([
  ["a params field that is not JSON, authenticated", "/api/v1/domains/list?params=%7B", API_KEY, 500],
  [
    "a params field that is not JSON, wrong key (auth runs first)",
    "/api/v1/domains/list?params=%7B",
    "nope",
    200,
  ],
])("documented crash cases: %s", async (_what, path, key, status) => {
  crashes = [];
  const answer = await send({
    method: "POST",
    path,
    headers: { "x-server-api-key": key },
    body: Buffer.alloc(0),
  });
  expect(answer.status).toBe(status);
  if (status === 500) expect(crashes[0]).toMatch(DOCUMENTED_CRASH);
});

it("a name over 255 characters that passes validation is Postal's database 500", async () => {
  crashes = [];
  const answer = await send({
    method: "POST",
    path: "/api/v1/domains/create",
    headers: { "content-type": "application/json", "x-server-api-key": API_KEY },
    body: Buffer.from(JSON.stringify({ name: `${"a".repeat(300)}.example.com` })),
  });
  expect(answer.status).toBe(500);
  expect(crashes[0]).toMatch(DOCUMENTED_CRASH);
});
