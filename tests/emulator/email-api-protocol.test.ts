import { emailApiService } from "../../emulator/email-api";
import { FaultInjector } from "../../emulator/http/faults";
import { RequestLog } from "../../emulator/http/request-log";
import { startHttpService } from "../../emulator/http/service";
import {
  api,
  API_KEY,
  call,
  dns,
  failure,
  faults,
  log,
  MASTER_KEY,
  parameterError,
  resolverAddress,
  service,
  SMTP_KEY,
  store,
  success,
  useEmailApiService,
} from "../support/email-api-service";

/** The email API emulator: its transport and envelope, authentication and parameter errors. */

useEmailApiService();

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
