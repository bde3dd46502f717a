import { runCli } from "../../emulator/cli";
import { parseRateLimit, ServiceRateLimit, TokenBucket } from "../../emulator/http/rate-limit";
import { startEmulator } from "../../emulator";

describe("TokenBucket", () => {
  it("lets a burst through, then refuses with Retry-After in whole seconds, rounded up", () => {
    const bucket = new TokenBucket({ requestsPerSecond: 20, burst: 20 }, 0);
    const burst = Array.from({ length: 20 }, () => bucket.take(0));
    expect(burst.every((admission) => admission.allowed)).toBe(true);
    // the next token is 50 ms away: a whole-seconds service says 1
    expect(bucket.take(0)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(bucket.take(49)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(bucket.take(50)).toEqual({ allowed: true });
    expect(bucket.take(60)).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it("refills at its rate up to the burst, never beyond", () => {
    const bucket = new TokenBucket({ requestsPerSecond: 2, burst: 3 }, 0);
    for (let i = 0; i < 3; i++) bucket.take(0);
    expect(bucket.take(0)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    const afterTenSeconds = Array.from({ length: 4 }, () => bucket.take(10_000).allowed);
    expect(afterTenSeconds).toEqual([true, true, true, false]);
  });

  it("says how many seconds until the next token when that is more than one", () => {
    const bucket = new TokenBucket({ requestsPerSecond: 0.4, burst: 1 }, 0);
    bucket.take(0);
    expect(bucket.take(0)).toEqual({ allowed: false, retryAfterSeconds: 3 }); // 2.5 s
  });
});

describe("ServiceRateLimit", () => {
  it("limits its own service only, and can be changed or turned off", () => {
    const limit = new ServiceRateLimit("email-api", { requestsPerSecond: 1, burst: 1 }, () => 0);
    expect(limit.admit("email-api").allowed).toBe(true);
    expect(limit.admit("email-api").allowed).toBe(false);
    expect(limit.admit("cloudflare").allowed).toBe(true);
    limit.set({ requestsPerSecond: 5, burst: 2 }); // a full bucket
    expect([limit.admit("email-api"), limit.admit("email-api")].every((a) => a.allowed)).toBe(true);
    limit.set(undefined);
    expect(Array.from({ length: 50 }, () => limit.admit("email-api").allowed).every(Boolean)).toBe(true);
    expect(limit.get()).toBeUndefined();
  });

  it("refuses limits that cannot mean anything, naming the setting", () => {
    const limit = new ServiceRateLimit("email-api");
    expect(() => limit.set({ requestsPerSecond: 0, burst: 1 })).toThrow("`requestsPerSecond` must be");
    expect(() => limit.set({ requestsPerSecond: 1, burst: 0.5 })).toThrow("`burst` must be a whole number");
  });

  it("parses the command-line form RATE[/BURST]", () => {
    expect(parseRateLimit("20/20")).toEqual({ requestsPerSecond: 20, burst: 20 });
    expect(parseRateLimit("2.5")).toEqual({ requestsPerSecond: 2.5, burst: 3 });
    expect(() => parseRateLimit("fast")).toThrow("expected REQUESTS_PER_SECOND[/BURST]");
    expect(() => parseRateLimit("0/5")).toThrow("--rate-limit 0/5: rate limit: `requestsPerSecond`");
  });
});

describe("the emulator's rate limit", () => {
  // A refill that takes 100 s: what happens here cannot depend on how fast the machine is.
  const slow = { requestsPerSecond: 0.01, burst: 2 };

  it("is set with --rate-limit (shown in --help) and answers 429 over it, doing nothing", async () => {
    const help: string[] = [];
    await runCli(["--help"], (line) => help.push(line));
    expect(help.join("\n")).toMatch(/--rate-limit R\[\/B\]/);

    const emulator = (await runCli(
      ["--email-port", "0", "--cloudflare-port", "0", "--dns-port", "0", "--rate-limit", "0.01/2"],
      () => undefined,
    ))!;
    try {
      expect(emulator.rateLimit.get()).toEqual(slow);
      const create = (name: string) =>
        fetch(`${emulator.emailApi.url}/api/v1/domains/create`, {
          method: "POST",
          headers: { "X-Server-API-Key": emulator.emailApi.apiKey, "Content-Type": "application/json" },
          body: JSON.stringify({ name }),
        });
      expect((await create("a.example.com")).status).toBe(200);
      expect((await create("b.example.com")).status).toBe(200);
      const refused = await create("c.example.com");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("100");
      expect(await refused.text()).toBe("Too Many Requests");
      expect(emulator.state.domains.map((domain) => domain.name).sort()).toEqual([
        "a.example.com",
        "b.example.com",
      ]);
      expect(emulator.requests.all().map((entry) => [entry.status, entry.fault])).toEqual([
        [200, null],
        [200, null],
        [429, "rate-limit"],
      ]);
    } finally {
      await emulator.stop();
    }
  });

  it("is read, set and turned off through /__emulator/rate-limit on either port", async () => {
    const emulator = await startEmulator();
    try {
      const admin = (port: "email" | "cloudflare") =>
        `${port === "email" ? emulator.emailApi.url : emulator.cloudflare.url.replace("/client/v4", "")}/__emulator/rate-limit`;
      const list = () =>
        fetch(`${emulator.emailApi.url}/api/v1/domains/list`, {
          method: "POST",
          headers: { "X-Server-API-Key": emulator.emailApi.apiKey },
        });
      expect(await (await fetch(admin("email"))).json()).toEqual({ service: "email-api", limit: null });

      const put = await fetch(admin("cloudflare"), { method: "PUT", body: JSON.stringify({ limit: slow }) });
      expect(await put.json()).toEqual({ service: "email-api", limit: slow });
      expect([(await list()).status, (await list()).status, (await list()).status]).toEqual([200, 200, 429]);

      const bad = await fetch(admin("email"), {
        method: "PUT",
        body: JSON.stringify({ limit: { requestsPerSecond: -1, burst: 1 } }),
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: "rate limit: `requestsPerSecond` must be a number above 0" });

      await fetch(admin("email"), { method: "DELETE" });
      expect((await list()).status).toBe(200);
      expect(emulator.rateLimit.get()).toBeUndefined();
    } finally {
      await emulator.stop();
    }
  });
});
