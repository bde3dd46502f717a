import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator } from "../../emulator";
import { runCli } from "../../emulator/cli";
import { clientFor } from "../support/emulator";

/** The emulator as a whole: how it starts, what it prints, its state file and its control surface. */
describe("emulator", () => {
  it("prints the env lines a user pastes, and each one works", async () => {
    const lines: string[] = [];
    const emulator = (await runCli(
      [
        "--email-port",
        "0",
        "--cloudflare-port",
        "0",
        "--dns-port",
        "0",
        "--zone",
        "example.com",
        "--zone",
        "example.org",
      ],
      (line) => lines.push(line),
    ))!;
    try {
      const env = Object.fromEntries(
        lines.filter((line) => !line.startsWith("#")).map((line) => line.split("=") as [string, string]),
      );
      expect(Object.keys(env)).toEqual([
        "EMAIL_DELIVERY_BASE_URL",
        "EMAIL_DELIVERY_API_KEY",
        "EMAIL_DELIVERY_MASTER_KEY",
        "CLOUDFLARE_BASE_URL",
        "CLOUDFLARE_API_TOKEN",
        "CLOUDFLARE_ZONE_ID_EXAMPLE_COM",
        "CLOUDFLARE_ZONE_ID_EXAMPLE_ORG",
        "EMAIL_DELIVERY_DNS_RESOLVER",
        "EMULATOR_DNS_SERVER",
        "EMULATOR_NAMESERVERS",
        "EMULATOR_SERVER_ID",
      ]);
      expect(env.EMAIL_DELIVERY_API_KEY).toBe("EmulatorApiKey0000000001");
      expect(env.EMAIL_DELIVERY_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(env.EMULATOR_DNS_SERVER).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(env.EMAIL_DELIVERY_DNS_RESOLVER).toBe(env.EMULATOR_DNS_SERVER);
      expect(env.EMULATOR_NAMESERVERS).toBe(env.EMULATOR_DNS_SERVER);

      const domains = await fetch(`${env.EMAIL_DELIVERY_BASE_URL}/api/v1/domains/list`, {
        method: "POST",
        headers: { "X-Server-API-Key": env.EMAIL_DELIVERY_API_KEY, "Content-Type": "application/json" },
        body: "{}",
      });
      expect(await domains.json()).toMatchObject({ status: "success", data: [] });

      const zones = await fetch(`${env.CLOUDFLARE_BASE_URL}/zones?name=example.org`, {
        headers: { Authorization: `Bearer ${env.CLOUDFLARE_API_TOKEN}` },
      });
      expect(await zones.json()).toMatchObject({
        success: true,
        result: [{ id: env.CLOUDFLARE_ZONE_ID_EXAMPLE_ORG, name: "example.org" }],
      });

      const server = await fetch(`${env.EMAIL_DELIVERY_BASE_URL}/api/v1/server/create`, {
        method: "POST",
        headers: { "X-Master-Key": env.EMAIL_DELIVERY_MASTER_KEY, "Content-Type": "application/json" },
        body: JSON.stringify({ name: "From the CLI", mode: "Live" }),
      });
      expect(await server.json()).toMatchObject({ status: "success", data: { name: "From the CLI" } });
    } finally {
      await emulator.stop();
    }
  });

  it("gives the addresses it bound, never a name to look up, and IPv6 ones in brackets", async () => {
    const named = await startEmulator({ host: "localhost" });
    try {
      const ip = named.dns.host;
      expect(["127.0.0.1", "::1"]).toContain(ip);
      const at = (port: number) => (ip === "::1" ? `[::1]:${port}` : `127.0.0.1:${port}`);
      expect(named.dns.address).toBe(at(named.dns.port));
      expect(named.emailApi.url).toBe(`http://${at(Number(new URL(named.emailApi.url).port))}`);
      // The domain check asks that address: a domain with no records is checked, not a 500.
      const created = await clientFor(named).createDomain("named.example.com");
      expect((await clientFor(named).checkDomain(created.domain.id)).spfStatus).toBe("Missing");
    } finally {
      await named.stop();
    }
    const v6 = await startEmulator({ host: "::1" }).catch(() => undefined); // where ::1 exists
    if (v6) {
      await v6.stop();
      expect(v6.dns.address).toBe(`[::1]:${v6.dns.port}`);
      expect(v6.emailApi.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    }
  });

  it("keeps idle connections 75 s (nginx's default), not Node's 5 s, on both services", async () => {
    // A client reuses an idle connection when told to send; one the server closed meanwhile loses
    // the request unread. A process busy for a second across a 5 s mark (an in-process emulator on
    // a loaded machine) lost a create that way, and the create's lookup was a list no fault explained.
    const emulator = await startEmulator();
    try {
      for (const url of [emulator.emailApi.url, emulator.cloudflare.url]) {
        const answer = await fetch(new URL("/", url));
        await answer.arrayBuffer();
        expect([url, answer.headers.get("keep-alive")]).toEqual([url, "timeout=75"]);
      }
    } finally {
      await emulator.stop();
    }
  });

  it("gives a zone the same id on every start, so stack config can name it", async () => {
    const ids: string[] = [];
    for (let start = 0; start < 2; start++) {
      const emulator = await startEmulator({ zones: ["example.net"] });
      ids.push(emulator.cloudflare.zones[0].id);
      await emulator.stop();
    }
    expect(ids[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(ids[1]).toBe(ids[0]);
  });

  it("refuses a malformed --fault with a message naming it", async () => {
    await expect(runCli(["--fault", "domains/create:rate=2"], () => undefined)).rejects.toThrow(
      /--fault domains\/create:rate=2/,
    );
  });

  it("keeps state in a file, written atomically, and reloads it with the same keys", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "emulator-state-"));
    const stateFile = path.join(dir, "state.json");
    const first = await startEmulator({ stateFile });
    const { domain } = await clientFor(first).createDomain("kept.example.com");
    await clientFor(first).createRoute({ name: "kept", domainId: domain.id, endpointId: 1 });
    const apiKey = first.emailApi.apiKey;
    await first.stop();
    expect((await fs.readdir(dir)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(JSON.parse(await fs.readFile(stateFile, "utf8")).domains[0].name).toBe("kept.example.com");

    const second = await startEmulator({ stateFile, apiKey: "SomeOtherKey000000000001" });
    try {
      expect(second.emailApi.apiKey).toBe(apiKey); // the stored key, which is the one that works
      const client = clientFor(second);
      expect((await client.listDomains()).map((d) => d.name)).toEqual(["kept.example.com"]);
      expect((await client.listRoutes()).map((r) => r.name)).toEqual(["kept"]);
      const { domain: next } = await client.createDomain("next.example.com");
      expect(next.id).toBe(domain.id + 1);
      expect(second.cloudflare.zones).toHaveLength(1);
    } finally {
      await second.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("takes fault rules and hands out its request log over HTTP", async () => {
    const emulator = await startEmulator();
    try {
      const admin = `${emulator.emailApi.url}/__emulator`;
      const put = await fetch(`${admin}/faults`, {
        method: "PUT",
        body: JSON.stringify({ rules: [{ endpoints: "domains/list", rate503: 1 }] }),
      });
      expect(put.status).toBe(200);
      const listed = await fetch(`${emulator.emailApi.url}/api/v1/domains/list`, {
        method: "POST",
        headers: { "X-Server-API-Key": emulator.emailApi.apiKey, "Content-Type": "application/json" },
        body: "{}",
      });
      expect(listed.status).toBe(503);
      const log = (await (await fetch(`${admin}/requests`)).json()) as {
        counts: Record<string, number>;
        entries: { fault: string }[];
      };
      expect(log.counts).toEqual({ "domains/list": 1 });
      expect(log.entries[0].fault).toBe("503");
      const bad = await fetch(`${admin}/faults`, {
        method: "PUT",
        body: JSON.stringify({ rules: [{ endpoints: "*", rate429: 3 }] }),
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: "fault rule: `rate429` must be a number from 0 to 1" });
      await fetch(`${admin}/requests`, { method: "DELETE" });
      expect(emulator.requests.all()).toEqual([]);
    } finally {
      await emulator.stop();
    }
  });
});
