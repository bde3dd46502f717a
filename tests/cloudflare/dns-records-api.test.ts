import { dnsRecordsApi, DnsRecordsApi, isCloudflareApiError } from "../../provider/cloudflare/dns-records";
import { useEmulator } from "../support/emulator";
import { Script, startScriptedServer } from "../support/scripted-server";

/**
 * The Cloudflare DNS-records client the claimed records write with, against the emulator's
 * stand-in (the same API the Cloudflare provider is tested against) and its fault injector.
 * Waits between retries are recorded, not slept.
 */
describe("Cloudflare DNS-records API client", () => {
  const emulator = useEmulator();
  let slept: number[];
  let api: DnsRecordsApi;
  let zoneId: string;
  let counter = 0;
  const name = () => `claim${++counter}-${process.pid}.example.com`;

  beforeEach(() => {
    slept = [];
    zoneId = emulator().cloudflare.zones[0].id;
    api = dnsRecordsApi({
      baseUrl: emulator().cloudflare.url,
      apiToken: emulator().cloudflare.apiToken,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    emulator().faults.set([]);
  });
  afterAll(() => emulator().faults.set([]));

  const cloudflareRequests = (endpoint: string) =>
    emulator()
      .requests.all()
      .filter((entry) => entry.endpoint === `cloudflare:${endpoint}`);

  it("creates, lists by name, reads, replaces and deletes; a record already gone is no error", async () => {
    const at = name();
    const made = await api.create(zoneId, {
      name: at,
      type: "TXT",
      content: '"v=spf1 -all"',
      ttl: 300,
      proxied: false,
      comment: "mine",
    });
    expect(made).toMatchObject({
      name: at,
      type: "TXT",
      content: '"v=spf1 -all"',
      ttl: 300,
      comment: "mine",
    });
    await api.create(zoneId, {
      name: at,
      type: "MX",
      content: "mx.example.net",
      priority: 5,
      ttl: 300,
      proxied: false,
    });

    expect((await api.list(zoneId, { name: at })).map((r) => r.type).sort()).toEqual(["MX", "TXT"]);
    expect((await api.list(zoneId, { name: at.toUpperCase(), type: "MX" }))[0]).toMatchObject({
      priority: 5,
      comment: null,
    });
    expect(await api.get(zoneId, made.id)).toEqual(made);

    const replaced = await api.replace(zoneId, made.id, {
      name: at,
      type: "TXT",
      content: '"v=spf1 ~all"',
      ttl: 120,
      proxied: false,
      comment: null,
    });
    expect(replaced).toMatchObject({ id: made.id, content: '"v=spf1 ~all"', ttl: 120, comment: null });

    expect(await api.remove(zoneId, made.id)).toBe(true);
    expect(await api.get(zoneId, made.id)).toBeUndefined();
    expect(await api.remove(zoneId, made.id)).toBe(false);
  });

  it("reads every page of a long list", async () => {
    const at = name();
    for (let i = 0; i < 105; i++) {
      await api.create(zoneId, { name: at, type: "TXT", content: `"record ${i}"`, ttl: 300, proxied: false });
    }
    const listed = await api.list(zoneId, { name: at, type: "TXT" });
    expect(new Set(listed.map((record) => record.content)).size).toBe(105);
  });

  it("reads a whole zone 5,000 records a request, every record of it", async () => {
    const at = name();
    for (let i = 0; i < 101; i++) {
      await api.create(zoneId, { name: at, type: "TXT", content: `"whole ${i}"`, ttl: 300, proxied: false });
    }
    emulator().requests.clear();
    const zone = await api.listZone(zoneId);
    const held = emulator().state.cloudflare.records.filter((record) => record.zoneId === zoneId);
    expect(held.length).toBeGreaterThan(100);
    expect(zone.map((record) => record.id).sort()).toEqual(held.map((record) => record.id).sort());
    // More than Cloudflare's default page of 100, in one request.
    expect(cloudflareRequests("dns_records.list")).toHaveLength(1);
  });

  it("makes a record once when the answer to its create is lost after Cloudflare made it", async () => {
    const at = name();
    emulator().faults.set([{ endpoints: "cloudflare:dns_records.create", commitThenDropRate: 1, times: 1 }]);
    emulator().requests.clear();
    const made = await api.create(zoneId, {
      name: at,
      type: "TXT",
      content: '"once"',
      ttl: 300,
      proxied: false,
      comment: "c",
    });
    expect(await api.list(zoneId, { name: at })).toEqual([made]);
    expect(cloudflareRequests("dns_records.create")).toHaveLength(1); // found by its lookup, not sent again
  });

  describe("a create refused as identical", () => {
    const body = {
      name: "late.example.com",
      type: "TXT",
      content: '"late"',
      ttl: 300,
      proxied: false,
      comment: "mine",
    };
    const record = { id: "1".repeat(32), ...body };
    const list = (result: unknown[]) =>
      JSON.stringify({ success: true, errors: [], result, result_info: { total_pages: 1 } });
    const identical = {
      status: 400,
      body: JSON.stringify({
        success: false,
        errors: [{ code: 81058, message: "An identical record already exists." }],
        result: null,
      }),
    };
    const create = async (scripts: Script[]) => {
      const server = await startScriptedServer(scripts);
      try {
        const api = dnsRecordsApi({ baseUrl: server.url, apiToken: "t".repeat(40), sleep: async () => {} });
        const made = await api.create(zoneId, body).catch((e: unknown) => e);
        return {
          made,
          sent: server.received.map((request) => (request.path.includes("?") ? "list" : "create")),
        };
      } finally {
        await server.close();
      }
    };

    it("returns the record its lost create made after all, when the resend is refused", async () => {
      const { made, sent } = await create([
        { drop: true }, // the create's answer is lost; Cloudflare makes the record a moment later
        { status: 200, body: list([]) }, // so the lookup does not see it yet
        identical,
        { status: 200, body: list([record]) },
      ]);
      expect(made).toMatchObject({ id: record.id, content: '"late"', comment: "mine" });
      // Made once: the second POST was refused.
      expect(sent).toEqual(["create", "list", "create", "list"]);
    });

    it("fails when nothing was lost: the identical record is not this create's", async () => {
      const { made, sent } = await create([identical, { status: 200, body: list([record]) }]);
      expect(isCloudflareApiError(made) && made.codes).toEqual([81058]);
      expect(sent).toEqual(["create"]);
    });
  });

  it("sends a create again after a 429, waiting as long as Retry-After says", async () => {
    const at = name();
    emulator().faults.set([
      { endpoints: "cloudflare:dns_records.create", rate429: 1, retryAfterSeconds: 7, times: 2 },
    ]);
    emulator().requests.clear();
    await api.create(zoneId, { name: at, type: "TXT", content: '"after 429"', ttl: 300, proxied: false });
    expect(cloudflareRequests("dns_records.create").map((entry) => entry.status)).toEqual([429, 429, 200]);
    expect(slept).toEqual([7000, 7000]);
    expect(cloudflareRequests("dns_records.list")).toHaveLength(0); // a 429 proves nothing was made
    expect(await api.list(zoneId, { name: at })).toHaveLength(1);
  });

  it("retries reads, replaces and deletes through 5xx answers and dropped connections", async () => {
    const at = name();
    const made = await api.create(zoneId, {
      name: at,
      type: "TXT",
      content: '"x"',
      ttl: 300,
      proxied: false,
    });
    emulator().faults.set([
      { endpoints: "cloudflare:dns_records.get", dropRate: 1, times: 1 },
      { endpoints: "cloudflare:dns_records.update", rate503: 1, times: 2 },
      { endpoints: "cloudflare:dns_records.delete", rate503: 1, times: 1 },
    ]);
    expect(await api.get(zoneId, made.id)).toEqual(made);
    expect(
      (
        await api.replace(zoneId, made.id, {
          name: at,
          type: "TXT",
          content: '"y"',
          ttl: 300,
          proxied: false,
        })
      ).content,
    ).toBe('"y"');
    expect(await api.remove(zoneId, made.id)).toBe(true);
    expect(slept).toEqual([250, 250, 500, 250]);
  });

  it("gives up within its budget, naming the call and Cloudflare's answer, never the token", async () => {
    emulator().faults.set([{ endpoints: "cloudflare:dns_records.list", rate503: 1 }]);
    let clock = 0;
    const budgeted = dnsRecordsApi({
      baseUrl: emulator().cloudflare.url,
      apiToken: emulator().cloudflare.apiToken,
      budgetMs: 10_000,
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
    });
    const error = await budgeted.list(zoneId, { name: name() }).catch((e: unknown) => e);
    expect(isCloudflareApiError(error)).toBe(true);
    expect((error as Error).message).toMatch(/^Cloudflare list of all records named .+ failed: HTTP 503/);
    expect((error as Error).message).not.toContain(emulator().cloudflare.apiToken);
    expect(clock).toBe(7750); // 0.25 + 0.5 + 1 + 2 + 4 s; the next wait (8 s) would pass the 10 s budget
  });

  it("reports a refused token with Cloudflare's code and no part of the token", async () => {
    const wrong = `${emulator().cloudflare.apiToken.slice(0, -4)}XXXX`;
    const refused = dnsRecordsApi({ baseUrl: emulator().cloudflare.url, apiToken: wrong });
    const error = await refused.list(zoneId, { name: name() }).catch((e: unknown) => e);
    expect(isCloudflareApiError(error)).toBe(true);
    expect((error as Error).message).toMatch(/failed: HTTP (400|401|403) \(\d+ /);
    expect((error as Error).message).not.toContain(wrong.slice(0, 8));
  });

  it.each([
    [
      "waits for a Retry-After given as an HTTP date",
      [{ status: 429, body: "{}", headers: { "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" } }],
      [5000],
    ],
    [
      "backs off after a 429 whose Retry-After is 0 or a date gone by, instead of asking again at once",
      [
        { status: 429, body: "{}", headers: { "retry-after": "0" } },
        { status: 429, body: "{}", headers: { "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" } },
        { status: 429, body: "{}", headers: { "retry-after": "0.001" } },
      ],
      [250, 500, 1000],
    ],
  ] as [string, Script[], number[]][])("%s", async (_title, refusals, waits) => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    const record = { id: "0".repeat(32), name: "x.example.com", type: "TXT", content: '"x"', ttl: 300 };
    const server = await startScriptedServer([
      ...refusals,
      { status: 200, body: JSON.stringify({ success: true, errors: [], result: record }) },
    ]);
    try {
      const refused = dnsRecordsApi({
        baseUrl: server.url,
        apiToken: "t".repeat(40),
        now: () => now,
        sleep: async (ms) => void slept.push(ms),
      });
      expect((await refused.get(zoneId, record.id))?.id).toBe(record.id);
      expect(slept).toEqual(waits);
    } finally {
      await server.close();
    }
  });

  it("cuts a request's timeout to what is left of the budget", async () => {
    const server = await startScriptedServer([{ hang: true }]);
    let calls = 0;
    try {
      const late = dnsRecordsApi({
        baseUrl: server.url,
        apiToken: "t".repeat(40),
        budgetMs: 10_000,
        // The call began at 0; its first request goes at 9,999 ms: 1 ms left, not 30 s.
        now: () => (calls++ === 0 ? 0 : 9_999),
        sleep: async (ms) => {
          slept.push(ms);
        },
      });
      await expect(late.get(zoneId, "0".repeat(32))).rejects.toThrow(/no answer from .+ \(timeout\)/);
      expect(slept).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("quotes no part of the token from an answer that echoes it (a wrong base URL)", async () => {
    const token = "echoed-token-0123456789abcdef0123456789";
    const echo = JSON.stringify({ success: true, result: { headers: { authorization: `Bearer ${token}` } } });
    const server = await startScriptedServer([{ status: 200, body: echo }]);
    try {
      const elsewhere = dnsRecordsApi({ baseUrl: server.url, apiToken: token });
      const error = (await elsewhere.get(zoneId, "0".repeat(32)).catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(/^Cloudflare answered a DNS record without id, name or type: /);
      expect(error.message).toContain("[redacted]");
      expect(`${error.message}\n${error.stack}`).not.toContain(token.slice(0, 8));
    } finally {
      await server.close();
    }
  });

  it("refuses at once a base URL fetch could never send to, instead of retrying it for the budget", () => {
    const token = "pasted-token-0123456789abcdef0123456789";
    const refused = (baseUrl: string) => {
      try {
        dnsRecordsApi({ baseUrl, apiToken: token, sleep: async (ms) => void slept.push(ms) });
      } catch (error) {
        return (error as Error).message;
      }
      return "accepted";
    };
    const fix =
      "unset it to use Cloudflare's own API, or set it to a URL such as https://api.cloudflare.com/client/v4. " +
      "Nothing was sent.";
    expect(refused("api.cloudflare.com/client/v4")).toBe(
      `The Cloudflare API base URL "api.cloudflare.com/client/v4" is not a URL: ${fix}`,
    );
    expect(refused("ftp://127.0.0.1:9")).toBe(
      `The Cloudflare API base URL "ftp://127.0.0.1:9" uses ftp:, not http or https: ${fix}`,
    );
    expect(refused(`https://me:${token}@127.0.0.1:9/client/v4`)).toBe(
      'The Cloudflare API base URL "https://127.0.0.1:9" holds a user name or password: remove them (the API ' +
        "token is a setting of its own). Nothing was sent.",
    );
    expect(refused(token)).not.toContain(token.slice(0, 8));
    expect(refused(`${emulator().cloudflare.url}/`)).toBe("accepted");
    expect(slept).toEqual([]);
  });

  it("bounds a body that never ends by the request's timeout, as it bounds the headers", async () => {
    const server = await startScriptedServer([{ hangInBody: true }]);
    let calls = 0;
    try {
      const late = dnsRecordsApi({
        baseUrl: server.url,
        apiToken: "t".repeat(40),
        budgetMs: 10_000,
        // 500 ms left for the request: its headers arrive (on loopback, at once), its body never
        // ends. Unbounded, the body would hold the call until jest's own timeout.
        now: () => (calls++ === 0 ? 0 : 9_500),
        sleep: async (ms) => void slept.push(ms),
      });
      await expect(late.get(zoneId, "0".repeat(32))).rejects.toThrow(/no answer from .+ \(timeout\)/);
    } finally {
      await server.close();
    }
  });

  it("never follows a redirect: the token goes to the base URL only", async () => {
    const target = await startScriptedServer([{ status: 200, body: "{}" }]);
    const server = await startScriptedServer([
      { status: 307, body: "", headers: { location: `${target.url}/stolen` } },
    ]);
    try {
      const redirected = dnsRecordsApi({ baseUrl: server.url, apiToken: "t".repeat(40) });
      const body = { name: "x.example.com", type: "TXT", content: '"x"', ttl: 300, proxied: false };
      await expect(redirected.create(zoneId, body)).rejects.toThrow(
        /failed: HTTP 307, not Cloudflare's JSON/,
      );
      expect(server.received).toHaveLength(1);
      expect(target.received).toEqual([]);
    } finally {
      await server.close();
      await target.close();
    }
  });

  it("does not blame the base URL for an error page of a failing API (a 5xx in HTML)", async () => {
    const server = await startScriptedServer([{ status: 502, body: "<html>502 Bad Gateway</html>" }]);
    try {
      let clock = 0;
      const failing = dnsRecordsApi({
        baseUrl: server.url,
        apiToken: "t".repeat(40),
        budgetMs: 1000,
        now: () => clock,
        sleep: async (ms) => void (clock += ms),
      });
      const error = (await failing.get(zoneId, "0".repeat(32)).catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(/failed: HTTP 502, an error page, not Cloudflare's JSON$/);
    } finally {
      await server.close();
    }
  });

  it("says when the answer is not Cloudflare's JSON (a wrong base URL)", async () => {
    const server = await startScriptedServer([{ status: 200, body: "<html>hello</html>" }]);
    try {
      const elsewhere = dnsRecordsApi({ baseUrl: server.url, apiToken: "t".repeat(40) });
      await expect(elsewhere.get(zoneId, "0".repeat(32))).rejects.toThrow(
        /not Cloudflare's JSON: is the base URL right\?/,
      );
    } finally {
      await server.close();
    }
  });
  it("a zone id the token cannot reach: the setting, what is wrong, and what to check, first", async () => {
    const absent = "0123456789abcdef0123456789abcdef";
    const error = await api.list(absent, { name: name() }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(isCloudflareApiError(error)).toBe(true);
    expect(error?.message.split("\n")[0]).toBe(
      `Cloudflare zone ${absent} (cloudflare.zoneId) is not one the API token can reach (HTTP 404, 1001 Invalid ` +
        "zone identifier): check the zone's id in the Cloudflare dashboard (the zone → Overview → Zone ID), and " +
        "that the API token lists that zone under Zone Resources.",
    );
  });

  it("a token Cloudflare refuses: which token, and what it needs", async () => {
    const refused = dnsRecordsApi({
      baseUrl: emulator().cloudflare.url,
      apiToken: "not-the-token-0000000000",
    });
    const error = await refused.listZone(zoneId).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message.split("\n")[0]).toBe(
      "Cloudflare refused the API token (stack config `cloudflare:apiToken`, else CLOUDFLARE_API_TOKEN) for zone " +
        `${zoneId} (HTTP 403, 10000 Authentication error): check that the token is valid and has the permission ` +
        "Zone → DNS → Edit on that zone.",
    );
    expect(error?.message).not.toContain("not-the-token");
  });
});
