import { startEmulator, Emulator } from "../../emulator";
import { runCli } from "../../emulator/cli";
import { resolverAt } from "../support/dns-client";

/**
 * The emulator's authoritative name servers: two, as a Cloudflare zone's NS records name, each on
 * its own port; one held back keeps serving the zones as they were (propagation), an old value of
 * a changed record included, until released. Proxied names answer as Cloudflare answers them.
 */

const ZONE = "example.com";
const NAME = "s1._domainkey.example.com";

async function txt(address: string, name = NAME): Promise<string[] | string> {
  try {
    return (await resolverAt(address).resolveTxt(name)).map((strings) => strings.join(""));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? "error"; // ENOTFOUND (NXDOMAIN), ENODATA
  }
}

/** Changes a record's content in place, as `PATCH /zones/{zone}/dns_records/{id}` does. */
async function patchContent(emulator: Emulator, id: string, content: string): Promise<void> {
  const zoneId = emulator.cloudflare.zones[0].id;
  const response = await fetch(`${emulator.cloudflare.url}/zones/${zoneId}/dns_records/${id}`, {
    method: "PATCH",
    headers: { Authorization: `Bearer ${emulator.cloudflare.apiToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ content }),
  });
  expect(response.status).toBe(200);
}

describe("name servers", () => {
  let emulator: Emulator;
  beforeEach(async () => {
    emulator = await startEmulator({ zones: [ZONE], nameservers: 2 });
  });
  afterEach(() => emulator.stop());

  it("runs one DNS server per NS name of the zone, each on its own port", async () => {
    const [first, second] = emulator.dns.nameservers;
    expect(emulator.dns.nameservers).toHaveLength(2);
    expect(first.address).toBe(emulator.dns.address);
    expect(second.port).not.toBe(first.port);
    const ns = (await resolverAt(second.address).resolveNs(ZONE)).sort();
    expect(ns).toEqual([...first.names(ZONE), ...second.names(ZONE)].sort());
    expect(first.names(ZONE)).not.toEqual(second.names(ZONE));
    expect(emulator.envLines()).toContain(`EMULATOR_NAMESERVERS=${first.address},${second.address}`);
  });

  it("a held server keeps the old value of a changed record and misses a new one until released", async () => {
    const [first, second] = emulator.dns.nameservers;
    const record = await emulator.cloudflare.addRecord(ZONE, {
      type: "TXT",
      name: NAME,
      content: '"v=DKIM1; p=OLD"',
      ttl: 1,
    });
    second.hold();
    expect(second.held).toBe(true);
    await patchContent(emulator, record.id, '"v=DKIM1; p=NEW"');
    await emulator.cloudflare.addRecord(ZONE, {
      type: "TXT",
      name: "fresh.example.com",
      content: '"made while held"',
      ttl: 1,
    });

    expect(await txt(first.address)).toEqual(["v=DKIM1; p=NEW"]);
    expect(await txt(second.address)).toEqual(["v=DKIM1; p=OLD"]);
    expect(await txt(first.address, "fresh.example.com")).toEqual(["made while held"]);
    expect(await txt(second.address, "fresh.example.com")).toBe("ENOTFOUND");

    second.release();
    expect(second.held).toBe(false);
    expect(await txt(second.address)).toEqual(["v=DKIM1; p=NEW"]);
    expect(await txt(second.address, "fresh.example.com")).toEqual(["made while held"]);
  });

  it("the domain check asks the first server: held, the service sees the old value", async () => {
    const [first] = emulator.dns.nameservers;
    const record = await emulator.cloudflare.addRecord(ZONE, {
      type: "TXT",
      name: NAME,
      content: '"a"',
      ttl: 1,
    });
    first.hold();
    first.hold(); // a second hold keeps the first one's state
    await patchContent(emulator, record.id, '"b"');
    expect(await txt(first.address)).toEqual(["a"]);
    expect(await txt(emulator.dns.nameservers[1].address)).toEqual(["b"]);
  });

  it("answers a proxied CNAME with Cloudflare's addresses, never its target", async () => {
    await emulator.cloudflare.addRecord(ZONE, {
      type: "CNAME",
      name: "track.example.com",
      content: "track.service.example.net",
      ttl: 1,
      proxied: true,
    });
    const resolver = () => resolverAt(emulator.dns.nameservers[1].address);
    expect(await resolver().resolve4("track.example.com")).toEqual(["104.16.132.229", "104.16.133.229"]);
    expect(await resolver().resolve6("track.example.com")).toEqual([
      "2606:4700::6810:84e5",
      "2606:4700::6810:85e5",
    ]);
    await expect(resolver().resolveCname("track.example.com")).rejects.toMatchObject({ code: "ENODATA" });
  });
});

describe("the nameservers option", () => {
  it("is one by default, answering as both of a zone's NS names", async () => {
    const emulator = await startEmulator({ zones: [ZONE] });
    try {
      expect(emulator.dns.nameservers).toHaveLength(1);
      const [only] = emulator.dns.nameservers;
      expect((await resolverAt(only.address).resolveNs(ZONE)).sort()).toEqual([...only.names(ZONE)].sort());
      expect(only.names(ZONE)).toHaveLength(2);
    } finally {
      await emulator.stop();
    }
  });

  it("refuses a count a zone's NS records cannot name", async () => {
    await expect(startEmulator({ nameservers: 3 })).rejects.toThrow("nameservers: expected 1 or 2");
    await expect(startEmulator({ nameservers: 0 })).rejects.toThrow("nameservers: expected 1 or 2");
  });

  it("--nameservers 2 prints both servers", async () => {
    const lines: string[] = [];
    const emulator = (await runCli(
      ["--email-port", "0", "--cloudflare-port", "0", "--dns-port", "0", "--nameservers", "2"],
      (line) => lines.push(line),
    ))!;
    try {
      const line = lines.find((l) => l.startsWith("EMULATOR_NAMESERVERS="));
      expect(line).toMatch(/^EMULATOR_NAMESERVERS=127\.0\.0\.1:\d+,127\.0\.0\.1:\d+$/);
    } finally {
      await emulator.stop();
    }
  });
});
