import { createPublicKey } from "node:crypto";
import * as dgram from "node:dgram";
import { AddressInfo } from "node:net";
import { MailDnsConfig, defaultMailDnsConfig } from "../../emulator/config";
import { emailApiService, seedServer } from "../../emulator/email-api";
import { FaultInjector } from "../../emulator/http/faults";
import { RequestLog } from "../../emulator/http/request-log";
import { RunningService, startHttpService } from "../../emulator/http/service";
import { Store } from "../../emulator/store/store";

/**
 * The email API emulator over real HTTP on 127.0.0.1, asserting Postal's exact envelopes, codes
 * and texts. A tiny in-test DNS server stands in for the emulator's own (tested elsewhere).
 */

// Response bodies are arbitrary JSON; the assertions give them their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const API_KEY = "ApiKey0123456789abcdefgh";
const SMTP_KEY = "SmtpKey0123456789abcdefg";
const MASTER_KEY = "master-key-for-tests";
const dns: MailDnsConfig = { ...defaultMailDnsConfig(), dkimKeyBits: 1024 };

let store: Store;
let log: RequestLog;
let faults: FaultInjector;
let service: RunningService;
let resolverAddress: string;

beforeAll(async () => {
  store = new Store();
  seedServer(store, {
    name: "Main",
    apiKey: API_KEY,
    smtpKey: SMTP_KEY,
    endpoints: [
      { name: "Hook A", url: "http://127.0.0.1:9/a" },
      { name: "Hook B", url: "http://127.0.0.1:9/b" },
    ],
  });
  log = new RequestLog();
  faults = new FaultInjector();
  // Checks against the real DNS server are in domain-check.test.ts; here the resolver is unreachable.
  resolverAddress = await closedUdpPort();
  service = await startHttpService(
    emailApiService({ store, dns, masterKey: MASTER_KEY, resolver: () => resolverAddress }),
    { host: "127.0.0.1", port: 0, faults, log },
  );
});

afterAll(async () => {
  await service.close();
});

interface CallOptions {
  /** X-Server-API-Key; default the seeded key, null to leave it out. */
  key?: string | null;
  master?: string;
  method?: string;
  /** Default JSON; null to send none. */
  contentType?: string | null;
  /** Sent as is instead of JSON-encoding `params`. */
  raw?: string;
}

interface Answer {
  http: number;
  contentType: string;
  text: string;
  body: Json;
}

async function call(path: string, params?: unknown, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const contentType = options.contentType === undefined ? "application/json" : options.contentType;
  if (contentType !== null) headers["Content-Type"] = contentType;
  const key = options.key === undefined ? API_KEY : options.key;
  if (key !== null) headers["X-Server-API-Key"] = key;
  if (options.master !== undefined) headers["X-Master-Key"] = options.master;
  const method = options.method ?? "POST";
  const body =
    method === "GET" ? undefined : (options.raw ?? (params === undefined ? "" : JSON.stringify(params)));
  const response = await fetch(`${service.url}${path}`, { method, headers, body });
  const text = await response.text();
  const answerType = response.headers.get("content-type") ?? "";
  return {
    http: response.status,
    contentType: answerType,
    text,
    body: answerType.startsWith("application/json") ? JSON.parse(text) : undefined,
  };
}

const api = async (action: string, params?: unknown, options?: CallOptions): Promise<Json> => {
  const answer = await call(`/api/v1/${action}`, params, options);
  expect(answer.http).toBe(200);
  return answer.body;
};

const success = (data: unknown) => ({ status: "success", time: expect.any(Number), flags: {}, data });
const failure = (data: unknown) => ({ status: "error", time: expect.any(Number), flags: {}, data });
const parameterError = (message: string) => ({
  status: "parameter-error",
  time: expect.any(Number),
  flags: {},
  data: { message },
});

let domainCounter = 0;
/** A fresh domain on the seeded server (or the server of `key`). */
async function newDomain(
  key = API_KEY,
  name = `d${++domainCounter}-${Date.now()}.example.org`,
): Promise<Json> {
  const answer = await api("domains/create", { name }, { key });
  expect(answer.status).toBe("success");
  return answer.data;
}

function mainEndpoints() {
  const main = store.state.servers.find((server) => server.name === "Main")!;
  return store.state.endpoints.filter((endpoint) => endpoint.serverId === main.id);
}

async function newServer(name: string): Promise<Json> {
  const answer = await api("server/create", { name, mode: "Live" }, { key: null, master: MASTER_KEY });
  expect(answer.status).toBe("success");
  return answer.data;
}

describe("transport and envelope", () => {
  test("a success is HTTP 200 JSON with status, time (3 dp), flags and data", async () => {
    const answer = await call("/api/v1/routes/list", {});
    expect(answer.http).toBe(200);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toEqual(success(expect.any(Array)));
    expect(Object.keys(answer.body)).toEqual(["status", "time", "flags", "data"]);
    expect(Math.round(answer.body.time * 1000) / 1000).toBe(answer.body.time);
  });

  test.each(["GET", "PUT", "PATCH"])("%s is accepted like POST", async (method) => {
    const answer = await call("/api/v1/domains/list", undefined, { method });
    expect(answer.http).toBe(200);
    expect(answer.body.status).toBe("success");
  });

  test("a trailing slash routes the same", async () => {
    expect((await call("/api/v1/domains/list/", {})).body.status).toBe("success");
  });

  test.each([
    ["an unknown action", "POST", "/api/v1/domains/frobnicate"],
    ["an unknown controller", "POST", "/api/v1/nothing/list"],
    ["a path outside the API", "POST", "/"],
    ["an unrouted method", "DELETE", "/api/v1/domains/list"],
  ])("%s is a Rails 404 page, logged as `unknown`", async (_what, method, path) => {
    log.clear();
    const answer = await call(path, {}, { method });
    expect(answer.http).toBe(404);
    expect(answer.contentType).toMatch(/^text\/html/);
    expect(answer.text).toBe("Not Found");
    expect(log.all().map((entry) => entry.endpoint)).toEqual(["unknown"]);
  });

  test("malformed JSON with a JSON content type is a 400, before authentication", async () => {
    for (const raw of ["{", "{'name': 1}", "nul", "\u00ff\u00fe"]) {
      const answer = await call("/api/v1/domains/create", undefined, { raw, key: null });
      expect([answer.http, answer.text]).toEqual([400, "Bad Request"]);
      expect(answer.contentType).toMatch(/^text\/html/);
    }
  });

  test.each([["[1,2]"], ["42"], ['"example.com"'], ["null"], ["true"]])(
    "a non-object JSON body (%s) means no params",
    async (raw) => {
      expect(await api("domains/create", undefined, { raw })).toEqual(
        parameterError("`name` parameter is required but is missing"),
      );
    },
  );

  test("an empty JSON body means no params", async () => {
    expect(await api("domains/check", undefined, { raw: "" })).toEqual(
      parameterError("`id` parameter is required but is missing"),
    );
  });

  test("params may come as JSON in a urlencoded `params` field or the query string", async () => {
    const form = new URLSearchParams({ params: JSON.stringify({ id: 987654 }) }).toString();
    const viaBody = await api("domains/check", undefined, {
      raw: form,
      contentType: "application/x-www-form-urlencoded",
    });
    expect(viaBody.data).toEqual({
      message: "No domain with id 987654 found on this server.",
      code: "DomainNotFound",
    });

    const viaQuery = await call(`/api/v1/domains/check?${form}`, undefined, {
      method: "GET",
      contentType: null,
    });
    expect(viaQuery.body.data.code).toBe("DomainNotFound");

    // With a JSON content type Postal reads only the JSON params, so the field is ignored.
    const jsonTyped = await call(`/api/v1/domains/check?${form}`, undefined, { method: "GET" });
    expect(jsonTyped.body).toEqual(parameterError("`id` parameter is required but is missing"));
  });

  test("without a JSON content type or `params` field there are no params", async () => {
    const answer = await api("domains/check", undefined, { raw: '{"id": 1}', contentType: "text/plain" });
    expect(answer).toEqual(parameterError("`id` parameter is required but is missing"));
  });

  test("a `params` field that is not JSON crashes Postal's JSON.parse: 500 page", async () => {
    const answer = await call("/api/v1/domains/list", undefined, {
      raw: "params=%7Bnope",
      contentType: "application/x-www-form-urlencoded",
    });
    expect([answer.http, answer.text]).toEqual([500, "Internal Server Error"]);
    expect(answer.contentType).toMatch(/^text\/html/);

    // It is parsed inside the action, so authentication answers first.
    const anonymous = await api("domains/list", undefined, {
      key: null,
      raw: "params=%7Bnope",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(anonymous.data.code).toBe("AccessDenied");
  });

  test("injected 429 and 503 are plain-text proxy answers, 429 with Retry-After", async () => {
    faults.set([{ endpoints: "domains/list", rate429: 1, retryAfterSeconds: 3 }]);
    try {
      const response = await fetch(`${service.url}/api/v1/domains/list`, {
        method: "POST",
        headers: { "X-Server-API-Key": API_KEY },
      });
      expect(response.status).toBe(429);
      expect(response.headers.get("retry-after")).toBe("3");
      expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(await response.text()).toBe("Too Many Requests");

      faults.set([{ endpoints: "domains/list", rate503: 1 }]);
      const unavailable = await call("/api/v1/domains/list", {});
      expect([unavailable.http, unavailable.text]).toEqual([503, "Service Unavailable"]);
      expect(unavailable.contentType).toMatch(/^text\/plain/);
    } finally {
      faults.set([]);
    }
  });

  test("a body over the size limit is a 413 page", async () => {
    const small = await startHttpService(
      emailApiService({ store, dns, masterKey: MASTER_KEY, resolver: () => resolverAddress }),
      { host: "127.0.0.1", port: 0, faults: new FaultInjector(), log: new RequestLog(), maxBodyBytes: 1024 },
    );
    try {
      const response = await fetch(`${small.url}/api/v1/domains/create`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Server-API-Key": API_KEY },
        body: JSON.stringify({ name: "x".repeat(4096) }),
      });
      expect(response.status).toBe(413);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await response.text()).toBe("Payload Too Large");
    } finally {
      await small.close();
    }
  });
});

describe("authentication", () => {
  test("no key or a blank key: AccessDenied", async () => {
    const expected = failure({ message: "Must be authenticated as a server.", code: "AccessDenied" });
    expect(await api("domains/list", {}, { key: null })).toEqual(expected);
    expect(await api("domains/list", {}, { key: "   " })).toEqual(expected);
  });

  test("an unknown key: InvalidServerAPIKey, echoing the key in data.token", async () => {
    expect(await api("routes/list", {}, { key: "nope-not-a-key" })).toEqual(
      failure({
        message: "The API token provided in X-Server-API-Key was not valid.",
        token: "nope-not-a-key",
        code: "InvalidServerAPIKey",
      }),
    );
  });

  test("an SMTP key is refused like an unknown one", async () => {
    const answer = await api("domains/list", {}, { key: SMTP_KEY });
    expect(answer.data).toEqual({
      message: "The API token provided in X-Server-API-Key was not valid.",
      token: SMTP_KEY,
      code: "InvalidServerAPIKey",
    });
  });

  test("keys match case-insensitively (Postal's MySQL collation)", async () => {
    expect((await api("domains/list", {}, { key: API_KEY.toLowerCase() })).status).toBe("success");
  });

  test("the master key does not open server endpoints", async () => {
    const answer = await api("domains/list", {}, { key: null, master: MASTER_KEY });
    expect(answer.data.code).toBe("AccessDenied");
  });

  test("authentication comes before parameter checks", async () => {
    expect((await api("domains/check", {}, { key: null })).data.code).toBe("AccessDenied");
  });

  test("server/create needs X-Master-Key, never echoed; a server key does not do", async () => {
    const missing = failure({ message: "Must be authenticated with the master key.", code: "AccessDenied" });
    expect(await api("server/create", { name: "S", mode: "Live" }, { key: null })).toEqual(missing);
    expect(await api("server/create", { name: "S", mode: "Live" })).toEqual(missing);
    expect(await api("server/create", { name: "S", mode: "Live" }, { key: null, master: "wrong" })).toEqual(
      failure({ message: "The master key provided in X-Master-Key was not valid.", code: "AccessDenied" }),
    );
  });
});

describe("parameter errors", () => {
  test.each([[{}], [{ id: null }], [{ id: "" }], [{ id: "   " }]])("id missing: %j", async (params) => {
    expect(await api("domains/check", params)).toEqual(
      parameterError("`id` parameter is required but is missing"),
    );
  });

  test.each([[1.5], ["abc"], ["12a"], ["-1"], [true], [false], [[1]], [{ id: 1 }]])(
    "id %j is not an integer",
    async (id) => {
      expect(await api("domains/delete", { id })).toEqual(
        parameterError("`id` parameter should be an integer"),
      );
    },
  );

  test("an integer may be sent as a string of digits; huge ids are echoed as sent", async () => {
    expect((await api("routes/delete", { id: "424242" })).data).toEqual({
      message: "No route with id 424242 found on this server.",
      code: "RouteNotFound",
    });
    expect((await api("domains/check", { id: "123456789012345678901234567890" })).data.message).toBe(
      "No domain with id 123456789012345678901234567890 found on this server.",
    );
  });

  test.each([[123], [true], [["a.com"]], [{ name: "a.com" }]])("name %j is not a string", async (name) => {
    expect(await api("domains/create", { name })).toEqual(
      parameterError("`name` parameter should be a string"),
    );
  });

  test("routes/create reports the first missing parameter", async () => {
    expect(await api("routes/create", {})).toEqual(
      parameterError("`name` parameter is required but is missing"),
    );
    expect(await api("routes/create", { name: "a" })).toEqual(
      parameterError("`domain_id` parameter is required but is missing"),
    );
    expect(await api("routes/create", { name: "a", domain_id: 1 })).toEqual(
      parameterError("`endpoint_id` parameter is required but is missing"),
    );
    expect(await api("routes/create", { name: "a", domain_id: 1, endpoint_id: 1, mode: 5 })).toEqual(
      parameterError("`mode` parameter should be a string"),
    );
    expect(await api("routes/create", { name: "a", domain_id: 1, endpoint_id: 1, spam_mode: [] })).toEqual(
      parameterError("`spam_mode` parameter should be a string"),
    );
  });

  test("parameter names are own properties only", async () => {
    const answer = await api("domains/create", undefined, { raw: '{"__proto__": {"name": "x.com"}}' });
    expect(answer).toEqual(parameterError("`name` parameter is required but is missing"));
  });
});

describe("domains", () => {
  test("create returns the domain with its DNS records and a real DKIM key", async () => {
    log.clear();
    const answer = await api("domains/create", { name: "mail.example.com" });
    const data = answer.data;
    expect(answer).toEqual(
      success({
        id: expect.any(Number),
        uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        name: "mail.example.com",
        spf_status: null,
        dkim_status: null,
        mx_status: null,
        return_path_status: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        dns_records: [
          {
            purpose: "spf",
            type: "TXT",
            name: "mail.example.com",
            value: "v=spf1 a mx include:spf.postal.example.com ~all",
          },
          {
            purpose: "dkim",
            type: "TXT",
            name: expect.stringMatching(/^postal-[A-Z]{6}\._domainkey\.mail\.example\.com$/),
            value: expect.stringMatching(/^v=DKIM1; t=s; h=sha256; p=[A-Za-z0-9+/]+=*;$/),
          },
          {
            purpose: "return_path",
            type: "CNAME",
            name: "psrp.mail.example.com",
            value: "rp.postal.example.com",
          },
          {
            purpose: "mx",
            type: "MX",
            name: "mail.example.com",
            value: "mx1.postal.example.com",
            priority: 10,
          },
          {
            purpose: "mx",
            type: "MX",
            name: "mail.example.com",
            value: "mx2.postal.example.com",
            priority: 10,
          },
        ],
      }),
    );
    const p = /p=([^;]+);/.exec(data.dns_records[1].value)![1];
    const key = createPublicKey({ key: Buffer.from(p, "base64"), format: "der", type: "spki" });
    expect(key.asymmetricKeyType).toBe("rsa");
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(1024);

    expect(log.all().map((entry) => entry.effect)).toEqual([
      { created: { kind: "domain", id: data.id, name: "mail.example.com" } },
    ]);
  });

  test("list shows the server's domains without DNS records", async () => {
    const domain = await newDomain();
    const answer = await api("domains/list");
    const listed = answer.data.find((candidate: Json) => candidate.id === domain.id);
    const { dns_records: _records, ...fields } = domain;
    expect(listed).toEqual(fields);
  });

  test("an upper-case name is invalid: ValidationError with sentence and errors", async () => {
    expect(await api("domains/create", { name: "Example.COM" })).toEqual(
      failure({ message: "Name is invalid", errors: ["Name is invalid"], code: "ValidationError" }),
    );
    expect((await api("domains/create", { name: "exa mple.com" })).data.message).toBe("Name is invalid");
    expect((await api("domains/create", { name: "a.com\nb" })).data.message).toBe("Name is invalid");
  });

  test("a name already added (case-insensitively) is refused, joined Rails-style", async () => {
    const domain = await newDomain();
    expect((await api("domains/create", { name: domain.name })).data).toEqual({
      message: "Name is already added",
      errors: ["Name is already added"],
      code: "ValidationError",
    });
    expect((await api("domains/create", { name: domain.name.toUpperCase() })).data.message).toBe(
      "Name is invalid and Name is already added",
    );
  });

  test("domains are per server: another server may add the same name and cannot see ours", async () => {
    const domain = await newDomain();
    const other = await newServer(`Domains Other ${Date.now()}`);
    const theirs = await newDomain(other.api_key, domain.name);
    expect(theirs.id).not.toBe(domain.id);
    const listed = (await api("domains/list", {}, { key: other.api_key })).data;
    expect(listed.map((d: Json) => d.id)).toEqual([theirs.id]);
    expect((await api("domains/check", { id: domain.id }, { key: other.api_key })).data).toEqual({
      message: `No domain with id ${domain.id} found on this server.`,
      code: "DomainNotFound",
    });
  });

  test("check of an unknown id: DomainNotFound", async () => {
    expect(await api("domains/check", { id: 999999 })).toEqual(
      failure({ message: "No domain with id 999999 found on this server.", code: "DomainNotFound" }),
    );
  });

  test("check against an unreachable DNS server: everything Missing", async () => {
    const domain = await newDomain();
    const dkimHost = domain.dns_records[1].name;
    expect((await api("domains/check", { id: domain.id })).data).toEqual({
      spf_status: "Missing",
      spf_error: "No SPF record exists for this domain",
      dkim_status: "Missing",
      dkim_error: `No TXT records were returned for ${dkimHost}`,
      mx_status: "Missing",
      mx_error: `There are no MX records for ${domain.name}`,
      return_path_status: "Missing",
      return_path_error: `There is no return path record at psrp.${domain.name}`,
    });
  });

  test("delete returns {id, name}, removes the domain and its routes, then DomainNotFound", async () => {
    const domain = await newDomain();
    const keep = await newDomain();
    const endpointId = mainEndpoints()[0].id;
    const route = (await api("routes/create", { name: "a", domain_id: domain.id, endpoint_id: endpointId }))
      .data;
    const kept = (await api("routes/create", { name: "a", domain_id: keep.id, endpoint_id: endpointId }))
      .data;
    log.clear();

    expect(await api("domains/delete", { id: domain.id })).toEqual(
      success({ id: domain.id, name: domain.name }),
    );
    expect(log.all()[0].effect).toEqual({ deleted: { kind: "domain", id: domain.id } });
    const routeIds = (await api("routes/list")).data.map((r: Json) => r.id);
    expect(routeIds).not.toContain(route.id);
    expect(routeIds).toContain(kept.id);
    expect((await api("domains/list")).data.map((d: Json) => d.id)).not.toContain(domain.id);
    expect((await api("domains/delete", { id: domain.id })).data).toEqual({
      message: `No domain with id ${domain.id} found on this server.`,
      code: "DomainNotFound",
    });
  });

  test("a name too long for Postal's varchar(255) column fails like its database: 500", async () => {
    const answer = await call("/api/v1/domains/create", { name: "a".repeat(300_000) });
    expect([answer.http, answer.text]).toEqual([500, "Internal Server Error"]);
    const huge = await api("domains/create", { name: "A".repeat(300_000) });
    expect(huge.data.message).toBe("Name is invalid");
  });
});

describe("routes", () => {
  let domain: Json;
  let endpoints: { id: number }[];
  beforeAll(async () => {
    domain = await newDomain();
    endpoints = mainEndpoints();
  });

  test("create applies the defaults (Endpoint, Mark) and logs the natural key", async () => {
    log.clear();
    const answer = await api("routes/create", {
      name: "info",
      domain_id: domain.id,
      endpoint_id: endpoints[0].id,
    });
    expect(answer).toEqual(
      success({
        id: expect.any(Number),
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: "info",
        domain_id: domain.id,
        endpoint_id: endpoints[0].id,
        mode: "Endpoint",
        spam_mode: "Mark",
      }),
    );
    expect(log.all()[0].effect).toEqual({
      created: { kind: "route", id: answer.data.id, name: `info@${domain.name}` },
    });
    const stored = store.state.routes.find((route) => route.id === answer.data.id)!;
    expect(stored.token).toMatch(/^[a-z0-9]{8}$/);
  });

  test("ids as strings, every mode including Accept, wildcard and return-path names", async () => {
    for (const [name, mode, spamMode] of [
      ["*", "Accept", "Fail"],
      ["__returnpath__", "Hold", "Quarantine"],
      ["bounce-me", "Bounce", "Mark"],
      ["no.reply", "Reject", "Mark"],
    ]) {
      const answer = await api("routes/create", {
        name,
        domain_id: String(domain.id),
        endpoint_id: String(endpoints[1].id),
        mode,
        spam_mode: spamMode,
      });
      expect(answer.data).toMatchObject({ name, mode, spam_mode: spamMode, domain_id: domain.id });
    }
  });

  test("each invalid field, then all together as one Rails sentence", async () => {
    const base = { name: "valid", domain_id: domain.id, endpoint_id: endpoints[0].id };
    const message = async (changes: object) =>
      (await api("routes/create", { ...base, ...changes })).data.message;
    expect(await message({ name: "Bad Name" })).toBe("Name is invalid");
    expect(await message({ mode: "Drop" })).toBe("Mode is not included in the list");
    expect(await message({ mode: "" })).toBe("Mode is not included in the list");
    expect(await message({ spam_mode: "mark" })).toBe("Spam mode is not included in the list");
    expect(await message({ domain_id: 999999 })).toBe("Domain is invalid");
    expect(await message({ endpoint_id: 999999 })).toBe("Endpoint is invalid");

    const all = await api("routes/create", {
      name: "X",
      domain_id: 999999,
      endpoint_id: 999999,
      mode: "Drop",
      spam_mode: "x",
    });
    const errors = [
      "Name is invalid",
      "Mode is not included in the list",
      "Spam mode is not included in the list",
      "Domain is invalid",
      "Endpoint is invalid",
    ];
    expect(all).toEqual(
      failure({
        message: errors.slice(0, -1).join(", ") + ", and Endpoint is invalid",
        errors,
        code: "ValidationError",
      }),
    );
  });

  test("another server's domain or endpoint is invalid", async () => {
    const other = await newServer(`Routes Other ${Date.now()}`);
    const theirDomain = await newDomain(other.api_key);
    const theirEndpoint = store.state.endpoints.find((e) => e.serverId === other.id)!;
    expect(
      (await api("routes/create", { name: "x", domain_id: theirDomain.id, endpoint_id: endpoints[0].id }))
        .data.message,
    ).toBe("Domain is invalid");
    expect(
      (await api("routes/create", { name: "x", domain_id: domain.id, endpoint_id: theirEndpoint.id })).data
        .message,
    ).toBe("Endpoint is invalid");
  });

  test("a duplicate on this server: RouteAlreadyExists with data.status conflict", async () => {
    const params = { name: "dup", domain_id: domain.id, endpoint_id: endpoints[0].id };
    await api("routes/create", params);
    expect(await api("routes/create", { ...params, mode: "Hold" })).toEqual(
      failure({ message: "Route already exists", status: "conflict", code: "RouteAlreadyExists" }),
    );
  });

  test("the same name on the same domain name on another server names the server holding it", async () => {
    const other = await newServer(`Route Clash ${Date.now()}`);
    const theirDomain = await newDomain(other.api_key, domain.name);
    const theirEndpoint = store.state.endpoints.find((e) => e.serverId === other.id)!;
    await api("routes/create", { name: "sales", domain_id: domain.id, endpoint_id: endpoints[0].id });
    const answer = await api(
      "routes/create",
      { name: "sales", domain_id: theirDomain.id, endpoint_id: theirEndpoint.id },
      { key: other.api_key },
    );
    expect(answer.data).toEqual({
      message: "Name is configured on the main mail server",
      status: "conflict",
      code: "RouteAlreadyExists",
    });
  });

  test("list shows this server's routes only", async () => {
    const created = (
      await api("routes/create", { name: "listed", domain_id: domain.id, endpoint_id: endpoints[0].id })
    ).data;
    const listed = (await api("routes/list")).data;
    expect(listed).toContainEqual(created);
    const other = await newServer(`Routes List ${Date.now()}`);
    expect((await api("routes/list", {}, { key: other.api_key })).data).toEqual([]);
  });

  test("update changes name, endpoint, mode and spam mode in place; domain_id is ignored", async () => {
    const route = (
      await api("routes/create", { name: "before", domain_id: domain.id, endpoint_id: endpoints[0].id })
    ).data;
    const otherDomain = await newDomain();
    log.clear();
    const answer = await api("routes/update", {
      id: route.id,
      name: "after",
      endpoint_id: endpoints[1].id,
      mode: "Hold",
      spam_mode: "Quarantine",
      domain_id: otherDomain.id,
    });
    expect(answer).toEqual(
      success({
        ...route,
        name: "after",
        endpoint_id: endpoints[1].id,
        mode: "Hold",
        spam_mode: "Quarantine",
      }),
    );
    expect(log.all()[0].effect).toEqual({ updated: { kind: "route", id: route.id } });
    expect((await api("routes/update", { id: route.id })).data).toEqual(answer.data);
    expect((await api("routes/update", { id: String(route.id), name: "after", mode: null })).data).toEqual(
      answer.data,
    );
  });

  test("update validates like create and keeps the route unchanged on failure", async () => {
    const route = (
      await api("routes/create", { name: "stable", domain_id: domain.id, endpoint_id: endpoints[0].id })
    ).data;
    await api("routes/create", { name: "taken", domain_id: domain.id, endpoint_id: endpoints[0].id });
    expect((await api("routes/update", { id: route.id, name: "" })).data.message).toBe("Name can't be blank");
    expect((await api("routes/update", { id: route.id, name: " " })).data.message).toBe(
      "Name can't be blank and Name is invalid",
    );
    expect((await api("routes/update", { id: route.id, mode: "Nope" })).data.message).toBe(
      "Mode is not included in the list",
    );
    expect((await api("routes/update", { id: route.id, endpoint_id: 999999 })).data.message).toBe(
      "Endpoint is invalid",
    );
    expect((await api("routes/update", { id: route.id, name: "taken" })).data).toEqual({
      message: "Route already exists",
      status: "conflict",
      code: "RouteAlreadyExists",
    });
    expect(await api("routes/update", { id: route.id, endpoint_id: "x" })).toEqual(
      parameterError("`endpoint_id` parameter should be an integer"),
    );
    const listed = (await api("routes/list")).data.find((r: Json) => r.id === route.id);
    expect(listed).toEqual(route);
  });

  test("update and delete of an unknown route: RouteNotFound; delete returns {id, name}", async () => {
    expect(await api("routes/update", { id: 999999, name: "x" })).toEqual(
      failure({ message: "No route with id 999999 found on this server.", code: "RouteNotFound" }),
    );
    expect(await api("routes/update", { name: "x" })).toEqual(
      parameterError("`id` parameter is required but is missing"),
    );
    const route = (
      await api("routes/create", { name: "gone", domain_id: domain.id, endpoint_id: endpoints[0].id })
    ).data;
    log.clear();
    expect(await api("routes/delete", { id: route.id })).toEqual(success({ id: route.id, name: "gone" }));
    expect(log.all()[0].effect).toEqual({ deleted: { kind: "route", id: route.id } });
    expect((await api("routes/delete", { id: route.id })).data.code).toBe("RouteNotFound");
  });

  test("a route name too long for the column is a 500", async () => {
    const answer = await call("/api/v1/routes/create", {
      name: "r".repeat(256),
      domain_id: domain.id,
      endpoint_id: endpoints[0].id,
    });
    expect(answer.http).toBe(500);
  });
});

describe("send/message", () => {
  let domain: Json;
  beforeAll(async () => {
    domain = await newDomain();
  });

  const sendError = async (params: object, code: string, message: string) =>
    expect(await api("send/message", params)).toEqual(failure({ message, code }));

  test("accepts, stores one message per recipient and answers {message_id, messages}", async () => {
    log.clear();
    const before = store.state.messages.length;
    const answer = await api("send/message", {
      to: "a@example.net, B <b@example.net>",
      cc: ["c@example.net"],
      bcc: ["d@example.net"],
      from: `Sender <hello@${domain.name.toUpperCase()}>`,
      subject: "Hi",
      tag: "welcome",
      reply_to: "reply@example.net",
      plain_body: "plain",
      html_body: "<p>html</p>",
      headers: { "X-Thing": "1", "X-Num": 2 },
      attachments: [
        { name: "a.txt", content_type: "text/plain", data: Buffer.from("hello").toString("base64") },
      ],
    });
    expect(answer).toEqual(
      success({
        message_id: expect.stringMatching(/^[0-9a-f-]{36}@rp\.postal\.example\.com$/),
        messages: {
          "a@example.net": { id: expect.any(Number), token: expect.stringMatching(/^[A-Za-z0-9]{12}$/) },
          "b@example.net": { id: expect.any(Number), token: expect.any(String) },
          "c@example.net": { id: expect.any(Number), token: expect.any(String) },
          "d@example.net": { id: expect.any(Number), token: expect.any(String) },
        },
      }),
    );
    const stored = store.state.messages.slice(before);
    expect(stored.map((m) => m.rcptTo)).toEqual([
      "a@example.net",
      "b@example.net",
      "c@example.net",
      "d@example.net",
    ]);
    expect(stored[1]).toEqual({
      id: answer.data.messages["b@example.net"].id,
      token: answer.data.messages["b@example.net"].token,
      messageId: answer.data.message_id,
      serverId: expect.any(Number),
      rcptTo: "b@example.net",
      from: `Sender <hello@${domain.name.toUpperCase()}>`,
      sender: null,
      to: ["a@example.net", "B <b@example.net>"],
      cc: ["c@example.net"],
      bcc: ["d@example.net"],
      replyTo: "reply@example.net",
      subject: "Hi",
      tag: "welcome",
      plainBody: "plain",
      htmlBody: "<p>html</p>",
      headers: { "X-Thing": "1", "X-Num": "2" },
      attachments: [{ name: "a.txt", contentType: "text/plain", size: 5 }],
      createdAt: expect.any(String),
    });
    expect(log.all()[0].effect).toEqual({
      created: { kind: "message", id: stored[0].id, name: answer.data.message_id },
    });
  });

  test("each error, with Postal's code and message", async () => {
    const ok = { to: ["a@example.net"], from: `x@${domain.name}`, plain_body: "hi" };
    const many = Array.from({ length: 51 }, (_, i) => `r${i}@example.net`);
    await sendError(
      { ...ok, to: [] },
      "NoRecipients",
      "There are no recipients defined to receive this message",
    );
    await sendError(
      { ...ok, to: "" },
      "NoRecipients",
      "There are no recipients defined to receive this message",
    );
    await sendError(
      { ...ok, to: many },
      "TooManyToAddresses",
      "The maximum number of To addresses has been reached (maximum 50)",
    );
    await sendError(
      { ...ok, cc: many },
      "TooManyCCAddresses",
      "The maximum number of CC addresses has been reached (maximum 50)",
    );
    await sendError(
      { ...ok, bcc: many.join(",") },
      "TooManyBCCAddresses",
      "The maximum number of BCC addresses has been reached (maximum 50)",
    );
    await sendError({ ...ok, plain_body: " " }, "NoContent", "There is no content defined for this e-mail");
    await sendError(
      { ...ok, from: undefined },
      "FromAddressMissing",
      "The From address is missing and is required",
    );
    await sendError(
      { ...ok, from: "x@elsewhere.example" },
      "UnauthenticatedFromAddress",
      "The From address is not authorised to send mail from this server",
    );
    await sendError(
      { ...ok, from: "no-at-sign" },
      "UnauthenticatedFromAddress",
      "The From address is not authorised to send mail from this server",
    );
    await sendError(
      { ...ok, attachments: [{ data: "aGk=" }] },
      "AttachmentMissingName",
      "An attachment is missing a name",
    );
    await sendError(
      { ...ok, attachments: [{ name: "a.txt", data: "" }] },
      "AttachmentMissingData",
      "An attachment is missing data",
    );
  });

  test("only the first error is reported, in Postal's order", async () => {
    await sendError({}, "NoRecipients", "There are no recipients defined to receive this message");
    await sendError({ to: ["a@example.net"] }, "NoContent", "There is no content defined for this e-mail");
    await sendError(
      { to: ["a@example.net"], html_body: "x", attachments: [{ name: "a", data: "" }, { data: "x" }] },
      "FromAddressMissing",
      "The From address is missing and is required",
    );
    await sendError(
      {
        to: ["a@example.net"],
        html_body: "x",
        from: `a@${domain.name}`,
        attachments: [{ name: "a" }, { data: "x" }],
      },
      "AttachmentMissingData",
      "An attachment is missing data",
    );
  });

  test("another server's domain does not authorise the From address", async () => {
    const other = await newServer(`Send Other ${Date.now()}`);
    const answer = await api(
      "send/message",
      { to: "a@example.net", from: `a@${domain.name}`, plain_body: "x" },
      { key: other.api_key },
    );
    expect(answer.data.code).toBe("UnauthenticatedFromAddress");
  });

  test("odd types never crash: non-strings count as not given, non-object attachments are skipped", async () => {
    const answer = await api("send/message", {
      to: ["a@example.net", 5, null, { x: 1 }],
      cc: 7,
      from: `a@${domain.name}`,
      subject: { nested: true },
      plain_body: "x",
      headers: ["not", "an", "object"],
      attachments: ["nope", 3],
    });
    expect(Object.keys(answer.data.messages)).toEqual(["a@example.net"]);
    expect((await api("send/message", { to: 5, from: 5, plain_body: 5 })).data.code).toBe("NoRecipients");
  });
});

describe("server/create", () => {
  const create = (params: object) => api("server/create", params, { key: null, master: MASTER_KEY });

  test("creates a Live server with fresh keys and the first server's endpoints", async () => {
    log.clear();
    const answer = await create({ name: "Staging Mail", mode: "Development" });
    expect(answer).toEqual(
      success({
        id: expect.any(Number),
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: "Staging Mail",
        permalink: "staging-mail",
        mode: "Development",
        api_key: expect.stringMatching(/^[A-Za-z0-9]{24}$/),
        smtp_key: expect.stringMatching(/^[A-Za-z0-9]{24}$/),
      }),
    );
    const { id, api_key: apiKey, smtp_key: smtpKey } = answer.data;
    expect(log.all()[0].effect).toEqual({ created: { kind: "server", id, name: "Staging Mail" } });
    expect(
      store.state.endpoints.filter((e) => e.serverId === id).map(({ name, url }) => ({ name, url })),
    ).toEqual(mainEndpoints().map(({ name, url }) => ({ name, url })));
    expect((await api("domains/list", {}, { key: apiKey })).data).toEqual([]);
    expect((await api("domains/list", {}, { key: smtpKey })).data.code).toBe("InvalidServerAPIKey");
  });

  test("validation: mode, name taken (case-insensitively), permalink rules", async () => {
    await create({ name: "Taken Name", mode: "Live" });
    const message = async (params: object) => (await create(params)).data.message;
    expect(await create({ name: "Fine", mode: "live" })).toEqual(
      failure({
        message: "Mode is not included in the list",
        errors: ["Mode is not included in the list"],
        code: "ValidationError",
      }),
    );
    expect(await message({ name: "TAKEN NAME", mode: "Live" })).toBe(
      "Name has already been taken and Permalink has already been taken",
    );
    expect(await message({ name: "taken-name", mode: "Live" })).toBe("Permalink has already been taken");
    expect(await message({ name: "New", mode: "Live" })).toBe("Permalink is reserved");
    expect(await message({ name: "my_server", mode: "Live" })).toBe("Permalink is invalid");
    expect(await message({ name: "!!!", mode: "Live" })).toBe("Permalink can't be blank");
    expect((await create({ name: "Café Crème", mode: "Live" })).data.permalink).toBe("cafe-creme");
  });

  test("parameter errors", async () => {
    expect(await create({ mode: "Live" })).toEqual(
      parameterError("`name` parameter is required but is missing"),
    );
    expect(await create({ name: "X" })).toEqual(
      parameterError("`mode` parameter is required but is missing"),
    );
    expect(await create({ name: 1, mode: "Live" })).toEqual(
      parameterError("`name` parameter should be a string"),
    );
  });
});

describe("seedServer", () => {
  test("is idempotent by name", () => {
    const count = store.state.credentials.length;
    const again = seedServer(store, { name: "main", apiKey: "other", smtpKey: "other2", endpoints: [] });
    expect(again.name).toBe("Main");
    expect(store.state.credentials.length).toBe(count);
  });
});

/** A UDP port nothing listens on: bound, then released. */
async function closedUdpPort(): Promise<string> {
  const socket = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = (socket.address() as AddressInfo).port;
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return `127.0.0.1:${port}`;
}
