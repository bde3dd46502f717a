import { errorDetails } from "../../provider/client/errors";
import { interpretAnswer, kindForHttpStatus } from "../../provider/client/interpret";

const KEY = "SecretServerKey123456789";
const interpret = (httpStatus: number, body: unknown, retryAfter?: string) =>
  interpretAnswer(
    {
      operation: "domains/create",
      httpStatus,
      body: typeof body === "string" ? body : JSON.stringify(body),
      retryAfter,
    },
    [KEY],
  );
const failure = (httpStatus: number, body: unknown, retryAfter?: string) => {
  const result = interpret(httpStatus, body, retryAfter);
  if (result.ok) throw new Error("expected a failure");
  return result.error;
};

describe("interpretAnswer", () => {
  it("returns data of a Postal success envelope", () => {
    const result = interpret(200, { status: "success", time: 0.01, flags: {}, data: [{ id: 1 }] });
    expect(result).toEqual({ ok: true, data: [{ id: 1 }] });
  });

  it.each([
    ["AccessDenied", "auth"],
    ["InvalidServerAPIKey", "auth"],
    ["ServerSuspended", "auth"],
    ["DomainNotFound", "not-found"],
    ["RouteNotFound", "not-found"],
    ["RouteAlreadyExists", "conflict"],
    ["DomainNameExists", "conflict"],
    ["ValidationError", "validation"],
    ["SomethingNew", "validation"],
    ["InternalServerError", "transient"],
  ])("maps HTTP 200 error %s to kind %s", (code, kind) => {
    const error = failure(200, { status: "error", time: 0, flags: {}, data: { code, message: "m" } });
    expect(error).toMatchObject({
      kind,
      code,
      httpStatus: 200,
      serviceMessage: "m",
      operation: "domains/create",
    });
  });

  it("reads a conflict from data.status even when the code is unknown", () => {
    expect(failure(200, { status: "error", data: { code: "Clash", status: "conflict" } }).kind).toBe(
      "conflict",
    );
  });

  it("keeps a code-only error (ServerSuspended has no message) readable", () => {
    const error = failure(200, { status: "error", data: { code: "ServerSuspended" } });
    expect(error.message).toBe("domains/create failed (auth): [ServerSuspended] ServerSuspended.");
  });

  it("maps parameter-error (no code) to validation", () => {
    const error = failure(200, {
      status: "parameter-error",
      data: { message: "`name` parameter is required but is missing" },
    });
    expect(error).toMatchObject({ kind: "validation", code: "ParameterError" });
    expect(error.message).toContain("`name` parameter is required but is missing");
  });

  it("scrubs a key echoed in another letter case", () => {
    const error = failure(200, { status: "error", data: { code: "X", message: `bad ${KEY.toLowerCase()}` } });
    expect(error.serviceMessage).toBe("bad [redacted]");
  });

  it("never puts the echoed key (data.token) or any key text in the error", () => {
    const error = failure(200, {
      status: "error",
      data: {
        code: "InvalidServerAPIKey",
        message: `The API token provided in X-Server-API-Key was not valid. ${KEY}`,
        token: KEY,
      },
    });
    expect(error.kind).toBe("auth");
    expect(
      JSON.stringify({ ...errorDetails(error), message: error.message, stack: error.stack }),
    ).not.toContain(KEY);
  });

  it.each([
    [401, "auth"],
    [403, "auth"],
    [404, "not-found"],
    [409, "conflict"],
    [422, "validation"],
    [400, "validation"],
    [429, "transient"],
    [500, "transient"],
    [502, "transient"],
    [503, "transient"],
    [504, "transient"],
  ])("maps non-2xx %i with a JSON body to %s", (status, kind) => {
    const error = failure(status, { error: "Domain not found" });
    expect(error).toMatchObject({ kind, httpStatus: status, serviceMessage: "Domain not found" });
  });

  it("maps a fork's own error body `{status: 'error', message}` with HTTP 422", () => {
    expect(failure(422, { status: "error", message: "Name is invalid" })).toMatchObject({
      kind: "validation",
      serviceMessage: "Name is invalid",
    });
  });

  it("treats a 5xx as transient even when the body says validation", () => {
    expect(failure(503, { status: "error", data: { code: "ValidationError", message: "x" } }).kind).toBe(
      "transient",
    );
  });

  it("maps non-2xx without a JSON body by status, with a readable excerpt", () => {
    const error = failure(502, "<html><body><h1>502 Bad Gateway</h1></body></html>");
    expect(error).toMatchObject({ kind: "transient", httpStatus: 502 });
    expect(error.serviceMessage).toBe("answered HTTP 502: 502 Bad Gateway");
    expect(failure(404, "<h1>Not Found</h1>").serviceMessage).toContain("check the base URL");
    expect(failure(500, "").serviceMessage).toBe("answered HTTP 500 with an empty body");
  });

  it("refuses HTTP 200 with a body that is not JSON (a web page at a wrong base URL), without retrying", () => {
    const error = failure(200, "<html>welcome</html>");
    expect(error).toMatchObject({ kind: "validation", httpStatus: 200 });
    expect(error.serviceMessage).toContain("is the base URL right?");
    expect(failure(200, "[1,2]").kind).toBe("validation");
  });

  it("takes an empty 2xx (204 to a delete) as success without data", () => {
    expect(interpret(204, "")).toEqual({ ok: true, data: undefined });
  });

  it.each([
    [401, "auth"],
    [404, "not-found"],
    [409, "conflict"],
    [503, "transient"],
  ])("falls back to HTTP %i when the envelope's code is unknown", (status, kind) => {
    expect(failure(status, { status: "error", data: { code: "SomethingNew", message: "m" } }).kind).toBe(
      kind,
    );
  });

  it("refuses 2xx JSON that is not the envelope instead of guessing", () => {
    expect(failure(201, { id: 5, name: "example.com" }).kind).toBe("validation");
  });

  it("maps Moonrope-era statuses", () => {
    expect(failure(200, { status: "access-denied", data: {} }).kind).toBe("auth");
    expect(
      failure(200, { status: "validation-error", data: { errors: { name: ["is invalid"] } } }),
    ).toMatchObject({
      kind: "validation",
      serviceMessage: "name is invalid",
    });
    expect(failure(500, { status: "internal-server-error", data: {} }).kind).toBe("transient");
  });

  it("carries Retry-After in milliseconds", () => {
    expect(failure(429, "slow down", "2").retryAfterMs).toBe(2000);
  });
});

describe("kindForHttpStatus", () => {
  it("treats 408 and 425 as transient", () => {
    expect(kindForHttpStatus(408)).toBe("transient");
    expect(kindForHttpStatus(425)).toBe("transient");
  });
});
