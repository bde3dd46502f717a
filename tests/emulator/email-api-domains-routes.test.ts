import { createPublicKey } from "node:crypto";
import {
  api,
  call,
  failure,
  type Json,
  log,
  mainEndpoints,
  newDomain,
  newServer,
  parameterError,
  store,
  success,
  useEmailApiService,
} from "../support/email-api-service";

/** The email API emulator: domains (DNS records, DKIM keys, checks) and routes. */

useEmailApiService();

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
