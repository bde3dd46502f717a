import { runCli } from "../../emulator/cli";
import { CloudflareAccountLimit, parseAccountLimit } from "../../emulator/http/account-limit";
import { startEmulator } from "../../emulator";

/**
 * Cloudflare's account-wide API limit on the stand-in: a fixed window of `requests`, then every
 * request refused to the window's end. On a fake clock, or with a window far longer than the test.
 */
describe("CloudflareAccountLimit", () => {
  it("admits the window's requests, then refuses every one until the window ends", () => {
    let now = 0;
    const limit = new CloudflareAccountLimit("cloudflare", { requests: 3, windowSeconds: 10 }, () => now);
    const first = [limit.admit("cloudflare"), limit.admit("cloudflare"), limit.admit("cloudflare")];
    expect(first.map((admission) => admission.allowed)).toEqual([true, true, true]);
    expect(first.map((admission) => admission.headers?.Ratelimit)).toEqual([
      '"default";r=2;t=10',
      '"default";r=1;t=10',
      '"default";r=0;t=10',
    ]);
    expect(first[0].headers?.["Ratelimit-Policy"]).toBe('"default";q=3;w=10');
    now = 2_500;
    expect(limit.admit("cloudflare")).toMatchObject({ allowed: false, retryAfterSeconds: 8 });
    // Refused requests do not move the end: the block lasts to the window's end, not from the last.
    now = 9_999;
    expect(limit.admit("cloudflare")).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    now = 10_000;
    expect(limit.admit("cloudflare")).toMatchObject({
      allowed: true,
      headers: { Ratelimit: '"default";r=2;t=10' },
    });
  });

  it("counts only its own service, and can be changed or turned off", () => {
    const limit = new CloudflareAccountLimit("cloudflare", { requests: 1, windowSeconds: 300 }, () => 0);
    expect(limit.admit("cloudflare").allowed).toBe(true);
    expect(limit.admit("email-api")).toEqual({ allowed: true });
    expect(limit.admit("cloudflare").allowed).toBe(false);
    limit.set({ requests: 2, windowSeconds: 300 }); // a window not yet open
    expect(limit.admit("cloudflare").allowed).toBe(true);
    limit.set(undefined);
    expect(limit.admit("cloudflare")).toEqual({ allowed: true });
    expect(limit.get()).toBeUndefined();
  });

  it("refuses limits that mean nothing, naming the setting, and parses N/S", () => {
    const limit = new CloudflareAccountLimit("cloudflare");
    expect(() => limit.set({ requests: 0, windowSeconds: 300 })).toThrow("`requests` must be");
    expect(() => limit.set({ requests: 10, windowSeconds: 1.5 })).toThrow("`windowSeconds` must be");
    expect(parseAccountLimit("1200/300")).toEqual({ requests: 1200, windowSeconds: 300 });
    expect(() => parseAccountLimit("1200")).toThrow("expected REQUESTS/SECONDS");
    expect(() => parseAccountLimit("0/300")).toThrow("--cloudflare-limit 0/300: Cloudflare limit:");
  });
});

describe("the stand-in under Cloudflare's limit", () => {
  // A window of 5 minutes: nothing here can outlast it, however slow the machine.
  it("answers 971 with Retry-After to the window's end, does nothing refused, and leaves the email API alone", async () => {
    const emulator = await startEmulator({
      zones: ["example.com"],
      cloudflareLimit: { requests: 3, windowSeconds: 300 },
    });
    try {
      const { url, apiToken, zones } = emulator.cloudflare;
      const headers = { authorization: `Bearer ${apiToken}`, "content-type": "application/json" };
      const records = `${url}/zones/${zones[0].id}/dns_records`;
      const admitted = [];
      for (let i = 0; i < 3; i++) admitted.push(await fetch(records, { headers }));
      expect(admitted.map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect(admitted[2].headers.get("ratelimit")).toMatch(/^"default";r=0;t=\d+$/);
      expect(admitted[2].headers.get("ratelimit-policy")).toBe('"default";q=3;w=300');

      const refused = await fetch(records, {
        method: "POST",
        headers,
        body: JSON.stringify({ type: "TXT", name: "example.com", content: '"x"', ttl: 1 }),
      });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(240);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(300);
      expect(await refused.json()).toMatchObject({
        success: false,
        errors: [{ code: 971, message: "Please wait and consider throttling your request speed" }],
      });
      expect(emulator.cloudflare.records("example.com")).toEqual([]);
      expect(emulator.requests.all().at(-1)).toMatchObject({
        service: "cloudflare",
        status: 429,
        fault: "rate-limit",
      });

      const email = await fetch(`${emulator.emailApi.url}/api/v1/domains/list`, {
        method: "POST",
        headers: { "x-server-api-key": emulator.emailApi.apiKey, "content-type": "application/json" },
        body: "{}",
      });
      expect(email.status).toBe(200);
      expect(email.headers.get("ratelimit")).toBeNull();

      const admin = `${url.replace(/\/client\/v4$/, "")}/__emulator/cloudflare-limit`;
      expect(await (await fetch(admin)).json()).toEqual({
        service: "cloudflare",
        limit: { requests: 3, windowSeconds: 300 },
      });
      await fetch(admin, { method: "DELETE" });
      expect((await fetch(records, { headers })).status).toBe(200);
      expect(emulator.cloudflareLimit.get()).toBeUndefined();
    } finally {
      await emulator.stop();
    }
  });

  it("takes the limit from the command line", async () => {
    const lines: string[] = [];
    const emulator = await runCli(["--cloudflare-limit", "1200/300", "--zone", "example.com"], (line) =>
      lines.push(line),
    );
    try {
      expect(emulator!.cloudflareLimit.get()).toEqual({ requests: 1200, windowSeconds: 300 });
    } finally {
      await emulator!.stop();
    }
  });
});

describe("the limit's admin endpoint", () => {
  it("sets only an object, turns off only with null, bounds the settings and keeps nothing else", async () => {
    const emulator = await startEmulator({ cloudflareLimit: { requests: 1200, windowSeconds: 300 } });
    try {
      const admin = `${emulator.emailApi.url}/__emulator/cloudflare-limit`;
      const put = async (body: string) => {
        const answer = await fetch(admin, { method: "PUT", body });
        return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
      };
      // `0` or `false` is no way to say "off" or "refuse everything": refused, nothing changed.
      for (const body of ['{"limit":0}', '{"limit":false}', '{"limit":""}', '{"limit":[]}', "[]", "{}"])
        expect((await put(body)).status).toBe(400);
      expect((await put('{"limit":{"requests":5,"windowSeconds":1e308}}')).body.error).toMatch(
        /`windowSeconds` must be a whole number from 1 to 86400/,
      );
      expect((await put('{"limit":{"requests":1e300,"windowSeconds":60}}')).status).toBe(400);
      expect(emulator.cloudflareLimit.get()).toEqual({ requests: 1200, windowSeconds: 300 });
      // What else a body held is not kept as if it were a setting.
      expect((await put('{"limit":{"requests":5,"windowSeconds":60,"burst":9}}')).body).toEqual({
        service: "cloudflare",
        limit: { requests: 5, windowSeconds: 60 },
      });
      const tooLarge = await fetch(admin, { method: "PUT", body: "x".repeat(17 * 1024 * 1024) });
      expect(tooLarge.status).toBe(413);
      expect(emulator.cloudflareLimit.get()).toEqual({ requests: 5, windowSeconds: 60 });
      expect((await put('{"limit":null}')).body).toEqual({ service: "cloudflare", limit: null });
    } finally {
      await emulator.stop();
    }
  });
});
