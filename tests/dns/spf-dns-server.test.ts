import * as dgram from "node:dgram";
import { promises as dns } from "node:dns";
import { checkSpfLookups, dnsServerProblem, parseDnsServers, quoteTxt } from "../../provider/dns";
import { forgetConfig } from "../../provider/dynamic/configured";
import { dnsNameserversSetting, dnsResolverSetting } from "../../provider/dynamic/dns-settings";
import { DNS_NAMESERVERS_SETTING, DNS_RESOLVER_SETTING } from "../../provider/dynamic/connection-settings";
import { zoneRecordsApi } from "../support/cloudflare";
import { uniqueDomain, useEmulator } from "../support/emulator";
import { publishAddresses } from "../support/service-spf";
import { claimedInputs, configureClaimedProvider, createClaimed } from "../support/zone-harness";

/**
 * The DNS server the SPF checks of a merge ask (stack config emailDelivery:dnsResolver, else
 * EMAIL_DELIVERY_DNS_RESOLVER, else the machine's resolver). Here the machine's resolver (node:dns's
 * default servers) is a decoy on 127.0.0.1 that answers SERVFAIL to everything and counts what it
 * is asked, and the names are served by the emulator's DNS only.
 */

const emulator = useEmulator();
let decoy: { socket: dgram.Socket; asked: string[] };
let machineServers: string[];

/** A DNS server that answers every query SERVFAIL, recording each query's name. */
async function startDecoy(): Promise<typeof decoy> {
  const socket = dgram.createSocket("udp4");
  const asked: string[] = [];
  socket.on("message", (query, peer) => {
    const labels: string[] = [];
    for (let at = 12; query[at] > 0; at += query[at] + 1)
      labels.push(query.subarray(at + 1, at + 1 + query[at]).toString());
    asked.push(labels.join("."));
    const answer = Buffer.from(query);
    answer[2] |= 0x80; // a response
    answer[3] = (answer[3] & 0xf0) | 2; // SERVFAIL
    socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return { socket, asked };
}

beforeAll(async () => {
  decoy = await startDecoy();
  machineServers = dns.getServers();
  dns.setServers([`127.0.0.1:${decoy.socket.address().port}`]);
});
afterAll(() => {
  dns.setServers(machineServers);
  decoy.socket.close();
});
beforeEach(() => (decoy.asked.length = 0));

/** An SPF record at `_spf.<name>` with `lookups` `a:` terms, served by the emulator's DNS only. */
async function includedRecord(name: string, lookups: number): Promise<string> {
  await publishAddresses(emulator(), `h.${name}`);
  const content = quoteTxt(`v=spf1 ${`a:h.${name} `.repeat(lookups)}-all`);
  await zoneRecordsApi(emulator(), "POST", "", { name: `_spf.${name}`, type: "TXT", content, ttl: 300 });
  return `_spf.${name}`;
}

describe("dnsServerProblem", () => {
  it.each([
    "127.0.0.1",
    "127.0.0.1:7753",
    "192.0.2.1:1",
    "10.0.0.1:65535",
    "::1",
    "[::1]",
    "[::1]:5353",
    "2001:db8::53",
  ])("accepts %s", (address) => expect(dnsServerProblem(address)).toBeUndefined());

  // A name would be resolved by the machine's resolver; port 0 aborts node:dns, 99999 wraps.
  it.each([
    "localhost:53",
    "dns.example.com",
    "127.0.0.1:0",
    "127.0.0.1:99999",
    "127.0.0.1:",
    " 127.0.0.1",
    "127.0.0.1,192.0.2.1",
    "[127.0.0.1]:53",
    "::1]:53",
    "",
  ])("refuses %j", (address) =>
    expect(dnsServerProblem(address)).toBe(
      "must be the IP address of a DNS server, with its port when not 53 (e.g. 127.0.0.1:7753 or [::1]:5353), " +
        `not ${JSON.stringify(address)}`,
    ),
  );
});

describe("checkSpfLookups", () => {
  it("asks the DNS server it is given, never the machine's resolver", async () => {
    const name = uniqueDomain("given");
    const include = await includedRecord(name, 3);
    const check = await checkSpfLookups(`v=spf1 include:${include} ~all`, name, emulator().dns.address);
    expect(check).toEqual({ verdict: "ok", total: 4, limit: 10, lowerBound: false });
    expect(decoy.asked).toEqual([]);
  });

  it("without one asks the machine's resolver, as before", async () => {
    const name = uniqueDomain("machine");
    const include = await includedRecord(name, 3);
    const check = await checkSpfLookups(`v=spf1 include:${include} ~all`, name);
    expect(check).toMatchObject({ verdict: "temperror", lowerBound: true });
    expect(decoy.asked).toContain(include);
  });
});

describe("dnsResolverSetting", () => {
  const { env } = DNS_RESOLVER_SETTING;
  const saved = process.env[env];
  afterEach(() => {
    if (saved === undefined) delete process.env[env];
    else process.env[env] = saved;
  });

  it("is the stack config, else the environment variable, else unset (the machine's resolver)", () => {
    delete process.env[env];
    expect(dnsResolverSetting(undefined)).toBeUndefined();
    expect(dnsResolverSetting("")).toBeUndefined();
    process.env[env] = "127.0.0.1:5300";
    expect(dnsResolverSetting(undefined)).toBe("127.0.0.1:5300");
    expect(dnsResolverSetting("127.0.0.1:7753")).toBe("127.0.0.1:7753");
  });

  it("refuses a malformed value, naming where it came from", () => {
    process.env[env] = "localhost";
    expect(() => dnsResolverSetting("127.0.0.1:0")).toThrow(
      'Stack config emailDelivery:dnsResolver must be the IP address of a DNS server, with its port when not 53 (e.g. 127.0.0.1:7753 or [::1]:5353), not "127.0.0.1:0".',
    );
    expect(() => dnsResolverSetting(undefined)).toThrow(
      'The EMAIL_DELIVERY_DNS_RESOLVER environment variable must be the IP address of a DNS server, with its port when not 53 (e.g. 127.0.0.1:7753 or [::1]:5353), not "localhost".',
    );
  });
});

describe("the claimed record provider", () => {
  afterAll(() => forgetConfig());

  it("counts a merge's lookups through stack config emailDelivery:dnsResolver, refusing one over the limit", async () => {
    const zoneId = emulator().cloudflare.zones[0].id;
    await configureClaimedProvider(emulator(), { "emailDelivery:dnsResolver": emulator().dns.address });
    const name = uniqueDomain("claimed");
    const include = await includedRecord(name, 10);
    const mine = `v=spf1 include:${include} ~all`;
    await zoneRecordsApi(emulator(), "POST", "", { name, type: "TXT", content: quoteTxt(mine), ttl: 300 });
    await expect(createClaimed(claimedInputs(zoneId, { name }))).rejects.toThrow(
      /: SPF needs at least 12 DNS lookups, over the limit of 10 .* Nothing was changed in the zone\.$/,
    );
    expect(decoy.asked).toEqual([]);
    const records = (await zoneRecordsApi(emulator(), "GET", `?name.exact=${name}&type=TXT`)) as unknown as {
      content: string;
    }[];
    expect(records.map((record) => record.content)).toEqual([quoteTxt(mine)]);
  });
});

describe("dnsNameserversSetting", () => {
  const { env } = DNS_NAMESERVERS_SETTING;
  const saved = process.env[env];
  afterEach(() => {
    if (saved === undefined) delete process.env[env];
    else process.env[env] = saved;
  });

  it("is the stack config's list, else the environment's, else unset (each zone's own nameservers)", () => {
    delete process.env[env];
    expect(dnsNameserversSetting(undefined)).toBeUndefined();
    expect(dnsNameserversSetting("")).toBeUndefined();
    process.env[env] = "127.0.0.1:5300";
    expect(dnsNameserversSetting(undefined)).toEqual(["127.0.0.1:5300"]);
    expect(dnsNameserversSetting("127.0.0.1:7753, [::1]:7754")).toEqual(["127.0.0.1:7753", "[::1]:7754"]);
  });

  it("refuses a malformed server or an empty list, naming where it came from", () => {
    process.env[env] = " , ";
    expect(() => dnsNameserversSetting("127.0.0.1:7753,ns1.example.net")).toThrow(
      'Stack config emailDelivery:dnsNameservers must be the IP address of a DNS server, with its port when not 53 (e.g. 127.0.0.1:7753 or [::1]:5353), not "ns1.example.net".',
    );
    expect(() => dnsNameserversSetting(undefined)).toThrow(
      'The EMAIL_DELIVERY_DNS_NAMESERVERS environment variable must list DNS servers as IP[:PORT], comma-separated, not " , ".',
    );
  });
});

describe("parseDnsServers", () => {
  it("reads a comma-separated list, spaces allowed; refuses an empty entry or a bad address", () => {
    expect(parseDnsServers("127.0.0.1:7753, [::1]:7754,10.0.0.1")).toEqual({
      servers: ["127.0.0.1:7753", "[::1]:7754", "10.0.0.1"],
    });
    expect(parseDnsServers("127.0.0.1:7753,")).toEqual({
      problem: 'must list DNS servers as IP[:PORT], comma-separated, not "127.0.0.1:7753,"',
    });
    expect(parseDnsServers("127.0.0.1:0")).toEqual({ problem: expect.stringContaining('not "127.0.0.1:0"') });
  });
});
