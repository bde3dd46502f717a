import { addZone, cloudflareService } from "../../emulator/cloudflare";
import { assertValidComment, assertValidTags, knownSettings } from "../../emulator/cloudflare/record-input";
import { shadowMeta } from "../../emulator/cloudflare/record-shadows";
import { FaultInjector } from "../../emulator/http/faults";
import { RequestLog } from "../../emulator/http/request-log";
import { RunningService, startHttpService } from "../../emulator/http/service";
import { CloudflareDnsRecord, ZoneRecord } from "../../emulator/store/state";
import { Store } from "../../emulator/store/store";

/**
 * Where the Cloudflare stand-in is exactly as strict as Cloudflare, no more and no less: record
 * conflicts in either order, list parameters (values refused, `search` and the shadow parameters
 * served), a proxied record's TTL, comments and tags, `settings`. The sources are cited where
 * each rule is implemented (emulator/cloudflare/*).
 */

const TOKEN = "cf-test-token-0123456789abcdefghijklmnopqr";

let store: Store;
let zone: ZoneRecord;
let server: RunningService;

beforeAll(async () => {
  store = new Store();
  zone = addZone(store, "example.com");
  server = await startHttpService(
    cloudflareService({ store, config: { apiToken: TOKEN, splitLongTxt: true } }),
    { host: "127.0.0.1", port: 0, faults: new FaultInjector(), log: new RequestLog() },
  );
});
afterAll(async () => server?.close());
beforeEach(() => {
  store.state.cloudflare.records.length = 0;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are inspected field by field
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}/client/v4/zones/${zone.id}/dns_records${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      ...(body !== undefined && { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}
const create = (body: Record<string, unknown>) => call("POST", "", { proxied: false, ttl: 1, ...body });
const list = (query: string) => call("GET", `?${query}`);
const refusal = (code: number) => ({
  status: 400,
  body: expect.objectContaining({ success: false, errors: [expect.objectContaining({ code })] }),
});

describe("records at one name: the same rules whichever came first", () => {
  test.each(["_dmarc.example.com", "example.com"])(
    "a CNAME and a TXT or MX at %s, in either order",
    async (name) => {
      expect((await create({ name, type: "CNAME", content: "dmarc.vendor.example.net" })).status).toBe(200);
      expect((await create({ name, type: "TXT", content: '"v=DMARC1; p=none"' })).status).toBe(200);
      expect((await create({ name, type: "MX", content: "mx.example.net", priority: 10 })).status).toBe(200);

      store.state.cloudflare.records.length = 0;
      expect((await create({ name, type: "TXT", content: '"v=spf1 -all"' })).status).toBe(200);
      expect((await create({ name, type: "MX", content: "mx.example.net", priority: 10 })).status).toBe(200);
      expect((await create({ name, type: "CNAME", content: "elsewhere.example.net" })).status).toBe(200);
    },
  );

  test("a CNAME where an A is: 81053; an A or AAAA where a CNAME is: 81054, in both orders", async () => {
    await create({ name: "host", type: "A", content: "192.0.2.1" });
    expect(await create({ name: "host", type: "CNAME", content: "example.net" })).toEqual(refusal(81053));
    await create({ name: "alias", type: "CNAME", content: "example.net" });
    expect(await create({ name: "alias", type: "A", content: "192.0.2.1" })).toEqual(refusal(81054));
    expect(await create({ name: "alias", type: "AAAA", content: "2001:db8::1" })).toEqual(refusal(81054));
    expect(await create({ name: "alias", type: "CNAME", content: "other.example.net" })).toEqual(
      refusal(81053),
    );
  });
});

describe("list parameters", () => {
  beforeEach(async () => {
    await create({
      name: "@",
      type: "TXT",
      content: '"v=spf1 include:spf.example.net -all"',
      comment: "Mail SPF",
    });
    await create({ name: "www", type: "A", content: "192.0.2.1" });
    await create({ name: "tagged", type: "TXT", content: '"x"', tags: ["team:mail"] });
  });
  const names = async (query: string) =>
    ((await list(query)).body.result as { name: string }[]).map((r) => r.name).sort();

  test("search finds a substring of the name, content, comment or a tag, and-ed with the filters", async () => {
    expect(await names("search=WWW")).toEqual(["www.example.com"]);
    expect(await names("search=spf.example")).toEqual(["example.com"]);
    expect(await names("search=mail")).toEqual(["example.com", "tagged.example.com"]);
    expect(await names("search=mail&type=A&match=any")).toEqual([]);
  });

  test.each([
    ["match=some", "Match must be one of any or all."],
    ["tag_match=none", "Tag match must be one of any or all."],
    ["order=created_on", "Order must be one of type, name, content, ttl or proxied."],
    ["direction=up", "Direction must be one of asc or desc."],
    ["proxied=yes", "Proxied must be true or false."],
  ])("%s is refused: 400 9201", async (query, message) => {
    expect(await list(query)).toEqual({
      status: 400,
      body: { success: false, errors: [{ code: 9201, message }], messages: [], result: null },
    });
  });

  test("per_page runs from 1 to 5,000,000; outside it, or not a whole number, is refused, as is page 0", async () => {
    const one = await list("per_page=1");
    expect([one.status, one.body.result.length, one.body.result_info.per_page]).toEqual([200, 1, 1]);
    expect((await list("per_page=5000000")).status).toBe(200);
    for (const query of ["per_page=0", "per_page=5000001", "per_page=ten", "per_page=2.5", "page=0"]) {
      expect(await list(query)).toEqual(refusal(9201));
    }
  });

  test("shadowed_by_name needs include_shadow_metadata=true and a name below the apex", async () => {
    expect(await list("shadowed_by_name=sub.example.com")).toEqual(refusal(9201));
    expect(await list("include_shadow_metadata=true&shadowed_by_name=example.com")).toEqual(refusal(9201));
    expect(await list("shadowing_name=example.org")).toEqual(refusal(9201));
  });

  test("shadowed records: filtered by delegation, found by name, and their meta fields", async () => {
    const ns = (await create({ name: "sub.example.com", type: "NS", content: "ns1.sub.example.com" })).body
      .result;
    const glue = (await create({ name: "ns1.sub.example.com", type: "A", content: "192.0.2.53" })).body
      .result;
    await create({ name: "www.sub.example.com", type: "A", content: "192.0.2.2" });

    expect(await names("include_shadow_metadata=true&shadowed_by_name=sub.example.com")).toEqual([
      "ns1.sub.example.com",
      "www.sub.example.com",
    ]);
    expect(await names("shadowing_name=deep.www.sub.example.com")).toEqual(["sub.example.com"]);

    const all = (await list("include_shadow_metadata=true")).body.result as { id: string; meta: unknown }[];
    const meta = (id: string) => all.find((r) => r.id === id)?.meta;
    expect(meta(ns.id)).toEqual({ shadowed_records_count: 2 });
    expect(meta(glue.id)).toEqual({ shadowed_by: [ns.id], is_glue: true });
    expect(
      (await list("")).body.result.every((r: { meta: unknown }) => JSON.stringify(r.meta) === "{}"),
    ).toBe(true);
  });

  test("shadowMeta: glue under a shallower delegation is dead", () => {
    const record = (id: string, name: string, type: string, content: string) =>
      ({ id, name, type, content }) as CloudflareDnsRecord;
    const zoneRecords = [
      record("n1", "sub.example.com", "NS", "ns1.sub.example.com."),
      record("n2", "a.sub.example.com", "NS", "ns1.a.sub.example.com."),
      record("g", "ns1.a.sub.example.com", "A", "192.0.2.1"),
    ];
    expect(shadowMeta(zoneRecords[2], zoneRecords, "example.com")).toEqual({
      shadowed_by: ["n1", "n2"],
      is_glue: true,
      dead_glue: true,
    });
    expect(shadowMeta(zoneRecords[1], zoneRecords, "example.com")).toEqual({
      shadowed_by: ["n1"],
      shadowed_records_count: 1,
    });
  });
});

describe("what a record is stored with", () => {
  test("a proxied record's TTL is 1 (automatic), whatever was sent", async () => {
    const proxied = await create({ name: "www", type: "A", content: "192.0.2.1", proxied: true, ttl: 300 });
    expect([proxied.status, proxied.body.result.ttl]).toEqual([200, 1]);
    const dnsOnly = await create({ name: "api", type: "A", content: "192.0.2.1", ttl: 300 });
    expect(dnsOnly.body.result.ttl).toBe(300);
  });

  test("comments: at most 100 characters, no line breaks", async () => {
    expect((await create({ name: "a", type: "TXT", content: '"x"', comment: "é".repeat(100) })).status).toBe(
      200,
    );
    expect(await create({ name: "b", type: "TXT", content: '"x"', comment: "c".repeat(101) })).toEqual({
      status: 400,
      body: expect.objectContaining({
        errors: [{ code: 9313, message: "DNS record comment exceeds the maximum length of 100 characters." }],
      }),
    });
    expect(await create({ name: "c", type: "TXT", content: '"x"', comment: "two\nlines" })).toEqual(
      refusal(9313),
    );
    expect(() => assertValidComment("carriage\rreturn")).toThrow(/9313/);
  });

  test("tags: name:value, names of letters, digits, - and _ up to 32, values up to 100, 20 a record", async () => {
    expect(
      (await create({ name: "a", type: "TXT", content: '"x"', tags: ["team-1_x:any value: with colons"] }))
        .status,
    ).toBe(200);
    for (const tags of [
      ["nocolon"],
      ["bad name:x"],
      [`${"n".repeat(33)}:x`],
      [`n:${"v".repeat(101)}`],
      ["n:a\nb"],
    ]) {
      expect(await create({ name: "b", type: "TXT", content: '"x"', tags })).toEqual(refusal(9314));
    }
    expect(() => assertValidTags(Array.from({ length: 21 }, (_, i) => `t${i}:v`))).toThrow(/9314/);
    expect(() => assertValidTags(Array.from({ length: 20 }, (_, i) => `t${i}:v`))).not.toThrow();
  });

  test("settings: the type's known keys only; flatten_cname false on a proxied CNAME; none on a DNS-only CNAME", async () => {
    const txt = await create({
      name: "t",
      type: "TXT",
      content: '"x"',
      settings: { ipv4_only: true, made_up: 1 },
    });
    expect(txt.body.result.settings).toEqual({ ipv4_only: true });
    expect((await create({ name: "u", type: "TXT", content: '"x"' })).body.result.settings).toEqual({});
    const proxied = await create({ name: "p", type: "CNAME", content: "example.net", proxied: true });
    expect(proxied.body.result.settings).toEqual({ flatten_cname: false });
    const dnsOnly = await create({ name: "d", type: "CNAME", content: "example.net" });
    expect(dnsOnly.body.result).not.toHaveProperty("settings");
    const flattened = await create({
      name: "f",
      type: "CNAME",
      content: "example.net",
      settings: { flatten_cname: true },
    });
    expect(flattened.body.result.settings).toEqual({ flatten_cname: true });
    expect(
      await create({ name: "n", type: "A", content: "192.0.2.1", settings: { ipv6_only: "yes" } }),
    ).toEqual(refusal(9207));
    expect(knownSettings("MX", { flatten_cname: true })).toEqual({});
  });
});
