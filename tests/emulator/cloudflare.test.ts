import { addZone, cloudflareService } from "../../emulator/cloudflare";
import { recordFqdn } from "../../emulator/cloudflare/names";
import { recordFilter } from "../../emulator/cloudflare/record-filters";
import { compressIpv6 } from "../../emulator/cloudflare/record-input";
import {
  parseQuotedTxt,
  splitLongTxtContent,
  splitQuotedString,
  txtCharacterStrings,
} from "../../emulator/cloudflare/txt-content";
import { FaultInjector } from "../../emulator/http/faults";
import { RequestLog } from "../../emulator/http/request-log";
import { RunningService, startHttpService } from "../../emulator/http/service";
import { CloudflareDnsRecord, ZoneRecord } from "../../emulator/store/state";
import { Store } from "../../emulator/store/store";

const HOST = "127.0.0.1";
const TOKEN = "cf-test-token-0123456789abcdefghijklmnopqr";
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const ID = /^[0-9a-f]{32}$/;

describe("pure helpers", () => {
  test("recordFqdn: @, a relative label, FQDNs with or without dot; dotted names outside are refused", () => {
    expect(recordFqdn("@", "example.com")).toBe("example.com");
    expect(recordFqdn("WWW", "example.com")).toBe("www.example.com");
    expect(recordFqdn("_dmarc.Example.COM.", "example.com")).toBe("_dmarc.example.com");
    expect(recordFqdn("example.com", "example.com")).toBe("example.com");
    expect(recordFqdn("mail.example.org", "example.com")).toBeUndefined();
    expect(recordFqdn("sub.", "example.com")).toBeUndefined();
    expect(recordFqdn("bad name", "example.com")).toBeUndefined();
    expect(recordFqdn("", "example.com")).toBeUndefined();
  });

  test("parseQuotedTxt only accepts whitespace-separated quoted strings", () => {
    expect(parseQuotedTxt('"a" "b\\"c"')).toEqual({ strings: ["a", 'b\\"c'], separators: ["", " ", ""] });
    expect(parseQuotedTxt("v=spf1 -all")).toBeUndefined();
    expect(parseQuotedTxt('"a" b')).toBeUndefined();
    expect(parseQuotedTxt('"unterminated')).toBeUndefined();
  });

  test("splitLongTxtContent splits only quoted strings over 255 bytes, as Cloudflare does", () => {
    const long = "a".repeat(300);
    expect(splitLongTxtContent(`"${long}"`)).toBe(`"${"a".repeat(255)}" "${"a".repeat(45)}"`);
    expect(splitLongTxtContent(`"${"b".repeat(600)}"`)).toBe(
      `"${"b".repeat(255)}" "${"b".repeat(255)}" "${"b".repeat(90)}"`,
    );
    expect(splitLongTxtContent(`"x"  "${long}"`)).toBe(`"x"  "${"a".repeat(255)}" "${"a".repeat(45)}"`);
    expect(splitLongTxtContent(long)).toBe(long);
    expect(splitLongTxtContent(`"${"a".repeat(255)}"`)).toBe(`"${"a".repeat(255)}"`);
  });

  test("splitting counts an escape as one byte and never cuts one", () => {
    const raw = `${"a".repeat(254)}\\"tail`;
    expect(splitQuotedString(raw)).toEqual([`${"a".repeat(254)}\\"`, "tail"]);
    expect(splitQuotedString(`${"a".repeat(254)}é`)).toEqual([`${"a".repeat(254)}`, "é"]);
  });

  test("txtCharacterStrings decodes quoted strings and chunks unquoted content", () => {
    expect(txtCharacterStrings('"abc" "d\\"e\\\\f" "\\065"').map(String)).toEqual(["abc", 'd"e\\f', "A"]);
    expect(txtCharacterStrings("z".repeat(256)).map((b) => b.length)).toEqual([255, 1]);
  });

  test("compressIpv6 gives the RFC 5952 form", () => {
    expect(compressIpv6("2001:0DB8:0000:0000:0000:0000:0000:0001")).toBe("2001:db8::1");
  });

  test("recordFilter: operators are case-insensitive, match=any ORs, tags combine by tag_match", () => {
    const record = (name: string, content: string, extra: Partial<CloudflareDnsRecord> = {}) =>
      ({
        name,
        content,
        type: "TXT",
        proxied: false,
        comment: null,
        tags: [],
        ...extra,
      }) as CloudflareDnsRecord;
    const r = record("Mail.example.com", "v=spf1", { comment: "Owned by X", tags: ["team:mail"] });
    const matches = (query: string) => recordFilter(new URLSearchParams(query))(r);
    expect(matches("name.startswith=MAIL.")).toBe(true);
    expect(matches("name=mail.example.com.")).toBe(true);
    expect(matches("content.endswith=SPF1&type=TXT")).toBe(true);
    expect(matches("content.contains=dkim")).toBe(false);
    expect(matches("content.contains=dkim&name.endswith=example.com&match=any")).toBe(true);
    expect(matches("comment.present")).toBe(true);
    expect(matches("comment.absent")).toBe(false);
    expect(matches("comment.contains=owned")).toBe(true);
    expect(matches("tag=team:MAIL")).toBe(true);
    expect(matches("tag.present=team&tag.absent=team&tag_match=any")).toBe(true);
    expect(matches("tag.present=team&tag.absent=team")).toBe(false);
    expect(matches("proxied=true")).toBe(false);
  });
});

describe("Cloudflare v4 stand-in over HTTP", () => {
  let store: Store;
  let zone: ZoneRecord;
  let other: ZoneRecord;
  let log: RequestLog;
  let faults: FaultInjector;
  let server: RunningService;
  let unsplit: RunningService;

  beforeAll(async () => {
    store = new Store();
    zone = addZone(store, "example.com");
    other = addZone(store, "Example.ORG.");
    for (let i = 1; i <= 5; i++) addZone(store, `zone-${i}.test`);
    log = new RequestLog();
    faults = new FaultInjector();
    server = await startHttpService(
      cloudflareService({ store, config: { apiToken: TOKEN, splitLongTxt: true } }),
      {
        host: HOST,
        port: 0,
        faults,
        log,
      },
    );
    unsplit = await startHttpService(
      cloudflareService({ store, config: { apiToken: TOKEN, splitLongTxt: false } }),
      { host: HOST, port: 0, faults: new FaultInjector(), log: new RequestLog() },
    );
  });

  afterAll(async () => {
    await server?.close();
    await unsplit?.close();
  });

  interface Answer {
    status: number;
    contentType: string | null;
    headers: Headers;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are inspected field by field
    body: any;
  }

  async function call(
    method: string,
    path: string,
    options: { body?: unknown; raw?: string; auth?: string | null; base?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { Accept: "application/json" };
    const auth = options.auth === undefined ? `Bearer ${TOKEN}` : options.auth;
    if (auth !== null) headers.Authorization = auth;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(`${options.base ?? server.url}/client/v4${path}`, { method, headers, body });
    const text = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get("content-type"),
      headers: response.headers,
      body: text ? JSON.parse(text) : undefined,
    };
  }

  const records = () => `/zones/${zone.id}/dns_records`;
  const failed = (...errors: unknown[]) => ({ success: false, errors, messages: [], result: null });
  const create = (body: Record<string, unknown>) =>
    call("POST", records(), { body: { proxied: false, ttl: 1, ...body } });

  beforeEach(() => {
    store.state.cloudflare.records.length = 0;
    faults.set([]);
  });

  describe("routing and authentication", () => {
    test("a missing or malformed Authorization header is 400 6003/6111", async () => {
      const expected = failed({
        code: 6003,
        message: "Invalid request headers",
        error_chain: [{ code: 6111, message: "Invalid format for Authorization header" }],
      });
      for (const auth of [null, "Basic abc", "Bearer", `Bearer ${TOKEN} extra`]) {
        const answer = await call("GET", "/zones", { auth });
        expect([answer.status, answer.body]).toEqual([400, expected]);
      }
    });

    test("a well-formed wrong token is 403 10000", async () => {
      const answer = await call("GET", records(), { auth: "Bearer not-the-token" });
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual(failed({ code: 10000, message: "Authentication error" }));
    });

    test("unknown paths are 404 7000, malformed ids 400 7003+7000, unknown methods 405", async () => {
      const unknown = await call("GET", "/accounts");
      expect([unknown.status, unknown.body]).toEqual([
        404,
        failed({ code: 7000, message: "No route for that URI" }),
      ]);
      expect(unknown.contentType).toBe("application/json");

      const badZone = await call("GET", "/zones/example.com/dns_records");
      expect(badZone.status).toBe(400);
      expect(badZone.body).toEqual(
        failed(
          {
            code: 7003,
            message:
              "Could not route to /client/v4/zones/example.com/dns_records, perhaps your object identifier is invalid?",
          },
          { code: 7000, message: "No route for that URI" },
        ),
      );
      const badRecord = await call("GET", `${records()}/12345`);
      expect(badRecord.status).toBe(400);
      expect(badRecord.body.errors[0].code).toBe(7003);

      const method = await call("DELETE", "/zones");
      expect([method.status, method.body.errors]).toEqual([
        405,
        [{ code: 7001, message: "Method DELETE not available for that URI." }],
      ]);
    });

    test("a well-formed id of no zone is 404 1001", async () => {
      const answer = await call("GET", `/zones/${"f".repeat(32)}/dns_records`);
      expect([answer.status, answer.body]).toEqual([
        404,
        failed({ code: 1001, message: "Invalid zone identifier" }),
      ]);
    });

    test("paths are served without the /client/v4 prefix too", async () => {
      const response = await fetch(`${server.url}/zones/${zone.id}`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { result: { name: string } }).result.name).toBe("example.com");
    });

    test("endpoint names in the request log", async () => {
      log.clear();
      await call("GET", "/zones");
      await call("GET", `/zones/${zone.id}`);
      await call("GET", "/nowhere");
      const created = await create({ name: "log", type: "A", content: "192.0.2.1" });
      const id = created.body.result.id;
      await call("GET", `${records()}/${id}`);
      await call("PUT", `${records()}/${id}`, { body: { name: "log", type: "A", content: "192.0.2.2" } });
      await call("PATCH", `${records()}/${id}`, { body: { ttl: 120 } });
      await call("GET", records());
      await call("DELETE", `${records()}/${id}`);
      expect(log.counts()).toEqual({
        "cloudflare:zones.list": 1,
        "cloudflare:zones.get": 1,
        "cloudflare:unknown": 1,
        "cloudflare:dns_records.create": 1,
        "cloudflare:dns_records.get": 1,
        "cloudflare:dns_records.update": 1,
        "cloudflare:dns_records.patch": 1,
        "cloudflare:dns_records.list": 1,
        "cloudflare:dns_records.delete": 1,
      });
      expect(log.all().find((e) => e.endpoint === "cloudflare:dns_records.create")?.effect).toEqual({
        created: { kind: "cloudflare.dns_record", id, name: "log.example.com" },
      });
    });
  });

  describe("zones", () => {
    test("list filters by exact name and pages with per_page (default 20)", async () => {
      const byName = await call("GET", "/zones?name=example.org");
      expect(byName.body.result.map((z: { id: string }) => z.id)).toEqual([other.id]);
      expect(byName.body.result_info).toEqual({
        page: 1,
        per_page: 20,
        count: 1,
        total_count: 1,
        total_pages: 1,
      });
      expect((await call("GET", "/zones?name=example")).body.result).toEqual([]);

      const all = await call("GET", "/zones");
      expect(all.body.result).toHaveLength(7);
      const page2 = await call("GET", "/zones?per_page=5&page=2&order=name&direction=desc");
      expect(page2.body.result.map((z: { name: string }) => z.name)).toEqual(["example.org", "example.com"]);
      expect(page2.body.result_info).toEqual({
        page: 2,
        per_page: 5,
        count: 2,
        total_count: 7,
        total_pages: 2,
      });
      const past = await call("GET", "/zones?per_page=5&page=3");
      expect(past.body.result).toEqual([]);
    });

    test("get returns the zone object", async () => {
      const answer = await call("GET", `/zones/${zone.id}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ success: true, errors: [], messages: [] });
      expect(answer.body.result).toMatchObject({
        id: zone.id,
        name: "example.com",
        status: "active",
        paused: false,
        type: "full",
        name_servers: [
          expect.stringMatching(/\.ns\.cloudflare\.com$/),
          expect.stringMatching(/\.ns\.cloudflare\.com$/),
        ],
        account: { id: expect.stringMatching(ID), name: expect.any(String) },
        created_on: expect.stringMatching(TIMESTAMP),
        activated_on: expect.stringMatching(TIMESTAMP),
        modified_on: expect.stringMatching(TIMESTAMP),
      });
    });

    test("addZone is idempotent by name and makes 32-hex ids", () => {
      expect(addZone(store, "EXAMPLE.com.")).toBe(zone);
      expect(zone.id).toMatch(ID);
    });
  });

  describe("DNS records", () => {
    test("create returns the record in Cloudflare's shape", async () => {
      const answer = await create({ name: "@", type: "TXT", content: '"v=spf1 -all"', ttl: 300 });
      expect(answer.status).toBe(200);
      expect(answer.contentType).toBe("application/json");
      expect(answer.body).toEqual({
        success: true,
        errors: [],
        messages: [],
        result: {
          id: expect.stringMatching(ID),
          name: "example.com",
          type: "TXT",
          content: '"v=spf1 -all"',
          proxiable: false,
          proxied: false,
          ttl: 300,
          settings: {},
          meta: {},
          comment: null,
          tags: [],
          created_on: expect.stringMatching(TIMESTAMP),
          modified_on: answer.body.result.created_on,
        },
      });
    });

    test("names: relative label, FQDN with dot, uppercase; outside the zone is 400 9000", async () => {
      expect((await create({ name: "WWW", type: "A", content: "192.0.2.1" })).body.result.name).toBe(
        "www.example.com",
      );
      expect(
        (await create({ name: "Api.Example.com.", type: "A", content: "192.0.2.1" })).body.result.name,
      ).toBe("api.example.com");
      const outside = await create({ name: "mail.example.org", type: "A", content: "192.0.2.1" });
      expect([outside.status, outside.body]).toEqual([
        400,
        failed({ code: 9000, message: "DNS name is invalid." }),
      ]);
    });

    test("MX: priority returned, target lower-cased; other types carry no priority", async () => {
      const mx = await create({ name: "@", type: "MX", content: "MX1.Example.NET", priority: 10 });
      expect(mx.body.result).toMatchObject({
        type: "MX",
        content: "mx1.example.net",
        priority: 10,
        proxiable: false,
      });
      const a = await create({ name: "a", type: "A", content: "192.0.2.1", priority: 5 });
      expect(a.body.result).not.toHaveProperty("priority");
      expect(a.body.result.proxiable).toBe(true);
      const cname = await create({ name: "c", type: "CNAME", content: "Target.Example.NET" });
      expect(cname.body.result.content).toBe("target.example.net");
      const aaaa = await create({ name: "six", type: "AAAA", content: "2001:DB8:0:0:0:0:0:1" });
      expect(aaaa.body.result.content).toBe("2001:db8::1");
    });

    test("comment and tags: null/[] when none, their timestamps only when set", async () => {
      const answer = await create({
        name: "t",
        type: "TXT",
        content: '"x"',
        comment: "hello",
        tags: ["team:mail"],
      });
      expect(answer.body.result).toMatchObject({
        comment: "hello",
        tags: ["team:mail"],
        comment_modified_on: expect.stringMatching(TIMESTAMP),
        tags_modified_on: expect.stringMatching(TIMESTAMP),
      });
    });

    test("get, PUT (full replacement, null unsets), PATCH (partial), DELETE", async () => {
      const created = (
        await create({ name: "rec", type: "TXT", content: '"one"', ttl: 300, comment: "c", tags: ["a:b"] })
      ).body.result;
      const path = `${records()}/${created.id}`;
      const got = await call("GET", path);
      expect([got.status, got.body.result]).toEqual([200, created]);

      const put = await call("PUT", path, {
        body: {
          name: "rec.example.com",
          type: "TXT",
          content: '"two"',
          comment: null,
          tags: null,
          proxied: false,
        },
      });
      expect(put.status).toBe(200);
      const replaced = put.body.result;
      expect(replaced).toMatchObject({ id: created.id, content: '"two"', ttl: 1, comment: null, tags: [] });
      expect(replaced).not.toHaveProperty("comment_modified_on");
      expect(replaced).not.toHaveProperty("tags_modified_on");
      expect(replaced.created_on).toBe(created.created_on);
      expect(replaced.modified_on > created.modified_on).toBe(true);
      expect((await call("GET", path)).body.result.modified_on).toBe(replaced.modified_on);

      const patched = await call("PATCH", path, { body: { ttl: 600, comment: "new" } });
      expect(patched.body.result).toMatchObject({ content: '"two"', ttl: 600, comment: "new" });
      expect(patched.body.result.comment_modified_on).toMatch(TIMESTAMP);

      const deleted = await call("DELETE", path);
      expect([deleted.status, deleted.contentType, deleted.body]).toEqual([
        200,
        "application/json",
        { success: true, errors: [], messages: [], result: { id: created.id } },
      ]);
      const gone = failed({ code: 81044, message: "Record does not exist." });
      for (const method of ["GET", "DELETE"]) {
        const answer = await call(method, path);
        expect([answer.status, answer.body]).toEqual([404, gone]);
      }
      const putGone = await call("PUT", path, { body: { name: "rec", type: "TXT", content: '"x"' } });
      expect(putGone.status).toBe(404);
    });

    test("a record id of another zone is 404", async () => {
      const created = (await create({ name: "x", type: "A", content: "192.0.2.1" })).body.result;
      const answer = await call("GET", `/zones/${other.id}/dns_records/${created.id}`);
      expect(answer.status).toBe(404);
    });
  });

  describe("record errors", () => {
    const expectError = async (answerPromise: Promise<Answer>, status: number, ...errors: unknown[]) => {
      const answer = await answerPromise;
      expect([answer.status, answer.body]).toEqual([status, failed(...errors)]);
      expect(answer.contentType).toBe("application/json");
    };
    const ttlError = {
      code: 1004,
      message: "DNS Validation Error",
      error_chain: [{ code: 9021, message: "TTL must be between 60 and 86400 seconds, or 1 for Automatic." }],
    };

    test("identical record: 81058", async () => {
      await create({ name: "dup", type: "TXT", content: '"same"' });
      await expectError(create({ name: "DUP.example.com", type: "TXT", content: '"same"' }), 400, {
        code: 81058,
        message: "An identical record already exists.",
      });
      expect((await create({ name: "dup", type: "TXT", content: '"other"' })).status).toBe(200);
    });

    test("CNAME next to A: 81053; A next to CNAME: 81054", async () => {
      await create({ name: "host", type: "A", content: "192.0.2.1" });
      expect((await create({ name: "host", type: "A", content: "192.0.2.2" })).status).toBe(200);
      await expectError(create({ name: "host", type: "CNAME", content: "example.net" }), 400, {
        code: 81053,
        message: "An A, AAAA, or CNAME record with that host already exists.",
      });
      await create({ name: "alias", type: "CNAME", content: "example.net" });
      await expectError(create({ name: "alias", type: "AAAA", content: "2001:db8::1" }), 400, {
        code: 81054,
        message:
          "A CNAME record with that host already exists. For more details, refer to <https://developers.cloudflare.com/dns/manage-dns-records/troubleshooting/records-with-same-name/>.",
      });
    });

    test("TTL outside 1 and 60..86400: 1004/9021", async () => {
      for (const ttl of [0, 30, 86401, 1.5]) {
        await expectError(create({ name: "ttl", type: "A", content: "192.0.2.1", ttl }), 400, ttlError);
      }
      expect((await create({ name: "ttl", type: "A", content: "192.0.2.1", ttl: 60 })).status).toBe(200);
    });

    test("MX without priority: 1004/9100", async () => {
      await expectError(create({ name: "@", type: "MX", content: "mx.example.net" }), 400, {
        code: 1004,
        message: "DNS Validation Error",
        error_chain: [{ code: 9100, message: "priority is a required field." }],
      });
    });

    test("bad A / AAAA content: 9005 / 9006", async () => {
      await expectError(create({ name: "a", type: "A", content: "1.2.3" }), 400, {
        code: 9005,
        message: "Content for A record must be a valid IPv4 address.",
      });
      await expectError(create({ name: "a", type: "AAAA", content: "192.0.2.1" }), 400, {
        code: 9006,
        message: "Content for AAAA record must be a valid IPv6 address.",
      });
    });

    test("unsupported type, missing content, proxied TXT", async () => {
      await expectError(create({ name: "a", type: "SPF", content: "x" }), 400, {
        code: 1004,
        message: "DNS Validation Error",
        error_chain: [{ code: 9020, message: "Invalid DNS record type" }],
      });
      await expectError(create({ name: "a", type: "TXT" }), 400, {
        code: 1004,
        message: "DNS Validation Error",
        error_chain: [{ code: 9101, message: "content is a required field." }],
      });
      await expectError(create({ name: "a", type: "TXT", content: '"x"', proxied: true }), 400, {
        code: 9004,
        message: "This record type cannot be proxied.",
      });
    });

    test("malformed JSON: 6007; wrong field types: 9207", async () => {
      await expectError(call("POST", records(), { raw: "{nope" }), 400, {
        code: 6007,
        message: "Malformed JSON in request body",
      });
      await expectError(create({ name: "a", type: "A", content: "192.0.2.1", ttl: "300" }), 400, {
        code: 9207,
        message: "Request body is invalid.",
      });
      await expectError(call("POST", records(), { body: [1] }), 400, {
        code: 9207,
        message: "Request body is invalid.",
      });
    });

    test("PUT and PATCH are validated like create, conflicts exclude the record itself", async () => {
      const a = (await create({ name: "p", type: "TXT", content: '"a"' })).body.result;
      await create({ name: "p", type: "TXT", content: '"b"' });
      const path = `${records()}/${a.id}`;
      await expectError(
        call("PUT", path, { body: { name: "p", type: "TXT", content: '"a"', ttl: 5 } }),
        400,
        ttlError,
      );
      await expectError(call("PATCH", path, { body: { ttl: 5 } }), 400, ttlError);
      await expectError(call("PATCH", path, { body: { content: '"b"' } }), 400, {
        code: 81058,
        message: "An identical record already exists.",
      });
      expect(
        (await call("PUT", path, { body: { name: "p", type: "TXT", content: '"a"', ttl: 120 } })).status,
      ).toBe(200);
      await expectError(call("PATCH", path, { body: { content: null } }), 400, {
        code: 1004,
        message: "DNS Validation Error",
        error_chain: [{ code: 9101, message: "content is a required field." }],
      });
    });
  });

  describe("TXT storage", () => {
    const long = "p".repeat(300);

    test("long quoted strings are split with the switch on, never quoted when bare", async () => {
      const split = await create({ name: "dkim", type: "TXT", content: `"v=DKIM1; k=rsa; " "${long}"` });
      expect(split.body.result.content).toBe(`"v=DKIM1; k=rsa; " "${"p".repeat(255)}" "${"p".repeat(45)}"`);
      const bare = await create({ name: "bare", type: "TXT", content: long });
      expect(bare.body.result.content).toBe(long);
    });

    test("with splitLongTxt off content is stored byte for byte", async () => {
      const answer = await call("POST", records(), {
        base: unsplit.url,
        body: { name: "dkim2", type: "TXT", content: `"${long}"`, ttl: 1, proxied: false },
      });
      expect(answer.body.result.content).toBe(`"${long}"`);
    });
  });

  describe("listing records", () => {
    beforeEach(async () => {
      await create({
        name: "@",
        type: "TXT",
        content: '"v=spf1 include:spf.example.net ~all"',
        comment: "SPF",
      });
      await create({ name: "@", type: "MX", content: "mx1.example.net", priority: 10, ttl: 300 });
      await create({ name: "psrp", type: "CNAME", content: "rp.example.net", ttl: 120 });
      await create({ name: "postal-abc._domainkey.example.com", type: "TXT", content: '"v=DKIM1; p=abc"' });
      await create({ name: "www", type: "A", content: "192.0.2.1", proxied: true });
      await create({ name: "www2", type: "A", content: "192.0.2.2" });
    });

    const names = async (query: string) =>
      (await call("GET", `${records()}?${query}`)).body.result.map(
        (r: { name: string; type: string }) => `${r.type} ${r.name}`,
      );

    test("type, name (plain and dotted operators), content, comment, proxied, match", async () => {
      expect(await names("type=TXT")).toEqual(["TXT example.com", "TXT postal-abc._domainkey.example.com"]);
      expect(await names("name=EXAMPLE.com&type=MX")).toEqual(["MX example.com"]);
      expect(await names("name.exact=www.example.com")).toEqual(["A www.example.com"]);
      expect(await names("name.contains=DOMAINKEY")).toEqual(["TXT postal-abc._domainkey.example.com"]);
      expect(await names("name.startswith=www")).toEqual(["A www.example.com", "A www2.example.com"]);
      expect(await names("name.endswith=2.example.com")).toEqual(["A www2.example.com"]);
      expect(await names("content=MX1.example.net")).toEqual(["MX example.com"]);
      expect(await names("content.startswith=%22v%3DDKIM1")).toEqual([
        "TXT postal-abc._domainkey.example.com",
      ]);
      expect(await names("comment.present")).toEqual(["TXT example.com"]);
      expect(await names("comment.absent&type=TXT")).toEqual(["TXT postal-abc._domainkey.example.com"]);
      expect(await names("comment.exact=spf")).toEqual(["TXT example.com"]);
      expect(await names("proxied=true")).toEqual(["A www.example.com"]);
      expect(await names("type=MX&type=CNAME&match=any")).toEqual([
        "MX example.com",
        "CNAME psrp.example.com",
      ]);
    });

    test("order and direction", async () => {
      const byTtl = (await call("GET", `${records()}?order=ttl&direction=desc`)).body.result.map(
        (r: { ttl: number }) => r.ttl,
      );
      expect(byTtl).toEqual([300, 120, 1, 1, 1, 1]);
      expect((await names("order=name&type=A&direction=desc"))[0]).toBe("A www2.example.com");
    });

    test("paging: default per_page 100, pages until an empty result", async () => {
      const first = await call("GET", records());
      expect(first.body.result_info).toEqual({
        page: 1,
        per_page: 100,
        count: 6,
        total_count: 6,
        total_pages: 1,
      });
      const page1 = await call("GET", `${records()}?per_page=5&page=1`);
      const page2 = await call("GET", `${records()}?per_page=5&page=2`);
      const page3 = await call("GET", `${records()}?per_page=5&page=3`);
      expect([page1.body.result.length, page2.body.result.length, page3.body.result]).toEqual([5, 1, []]);
      expect(page3.body.result_info).toEqual({
        page: 3,
        per_page: 5,
        count: 0,
        total_count: 6,
        total_pages: 2,
      });
      const ids = [...page1.body.result, ...page2.body.result].map((r: { id: string }) => r.id);
      expect(new Set(ids).size).toBe(6);
    });

    test("a list never carries zone_id or zone_name", async () => {
      const all = (await call("GET", records())).body.result as Record<string, unknown>[];
      expect(all.some((r) => "zone_id" in r || "zone_name" in r)).toBe(false);
    });
  });

  describe("faults in Cloudflare's envelope", () => {
    test("429 with Retry-After, 503", async () => {
      faults.set([{ endpoints: "cloudflare:dns_records.list", rate429: 1, retryAfterSeconds: 2 }]);
      const limited = await call("GET", records());
      expect([limited.status, limited.headers.get("retry-after"), limited.body]).toEqual([
        429,
        "2",
        failed({ code: 971, message: "Please wait and consider throttling your request speed" }),
      ]);
      faults.set([{ endpoints: "cloudflare:**", rate503: 1 }]);
      const unavailable = await call("GET", "/zones");
      expect([unavailable.status, unavailable.contentType, unavailable.body.success]).toEqual([
        503,
        "application/json",
        false,
      ]);
    });
  });
});
