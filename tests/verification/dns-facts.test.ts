import * as dgram from "node:dgram";
import { addZone, zoneNameServers } from "../../emulator/cloudflare/zones";
import { startDnsServer, RunningDnsServer } from "../../emulator/dns";
import type { ZoneRecord } from "../../emulator/store/state";
import { Store } from "../../emulator/store/store";
import { quoteTxt } from "../../provider/dns/txt";
import { diagnose } from "../../provider/verification/diagnosis";
import { ExpectedRecord } from "../../provider/verification/diagnosis-facts";
import { DnsQuery, nodeDnsQuery } from "../../provider/dns/dns-query";
import { gatherDnsFacts } from "../../provider/verification/dns-facts";
import { storeRecord } from "../support/store-records";

/**
 * The DNS facts gatherer over real DNS packets, against two of the emulator's DNS servers on
 * 127.0.0.1: `fresh` holds every record, `lagging` holds the zone without them (a nameserver the
 * zone has not reached yet). The zone's NS names resolve to addresses from TEST-NET-1, which the
 * test's query routes to the two servers' ports: nothing else is contacted, and the machine's
 * resolver is never asked (its queries go to `fresh`).
 */

const HOST = "127.0.0.1";
const ZONE = "example.com";
const KEY = `v=DKIM1; t=s; h=sha256; p=${"K".repeat(300)}`;
const DKIM: ExpectedRecord = {
  purpose: "dkim",
  name: "postal-ab._domainkey.mail.example.com",
  type: "TXT",
  value: KEY,
};
const SERVICE_SAYS = { status: "Missing", text: "No TXT records were returned" };
/** Where the zone's nameservers are, as the resolver answers (never contacted: see `routed`). */
const NS_ADDRESSES = ["192.0.2.1", "192.0.2.2"];

let fresh: { store: Store; zone: ZoneRecord; server: RunningDnsServer };
let lagging: { store: Store; zone: ZoneRecord; server: RunningDnsServer };
let silent: dgram.Socket;

function addRecord(
  to: { store: Store; zone: ZoneRecord },
  fields: Parameters<typeof storeRecord>[2],
  zone = to.zone,
): void {
  storeRecord(to.store, zone, fields);
}

async function serve(): Promise<{ store: Store; zone: ZoneRecord; server: RunningDnsServer }> {
  const store = new Store();
  const zone = addZone(store, ZONE);
  return { store, zone, server: await startDnsServer({ store, host: HOST, port: 0 }) };
}

/** node:dns, each nameserver's address routed to its emulator; the resolver is `fresh`. */
function routed(timeoutMs = 10_000): { query: DnsQuery; asked: string[] } {
  const real = nodeDnsQuery(timeoutMs);
  const asked: string[] = [];
  const route: Record<string, string> = {
    [NS_ADDRESSES[0]]: `${HOST}:${fresh.server.port}`,
    [NS_ADDRESSES[1]]: `${HOST}:${lagging.server.port}`,
  };
  const query: DnsQuery = (server, name, type) => {
    asked.push(`${server ?? "resolver"} ${type} ${name}`);
    return real(
      server === undefined ? `${HOST}:${fresh.server.port}` : (route[server] ?? server),
      name,
      type,
    );
  };
  return { query, asked };
}

beforeAll(async () => {
  fresh = await serve();
  lagging = await serve();
  // The zone's nameservers' addresses, in a zone of their own on the fresh server.
  const nsZone = addZone(fresh.store, "ns.cloudflare.com");
  zoneNameServers(fresh.zone).forEach((name, index) =>
    addRecord(fresh, { name, type: "A", content: NS_ADDRESSES[index] }, nsZone),
  );
  addRecord(fresh, { name: DKIM.name, type: "TXT", content: quoteTxt(KEY) });
  silent = dgram.createSocket("udp4"); // takes queries, never answers
  await new Promise<void>((resolve) => silent.bind(0, HOST, resolve));
});

afterAll(async () => {
  await fresh?.server.close();
  await lagging?.server.close();
  silent?.close();
});

describe("gatherDnsFacts", () => {
  it("asks each of the zone's nameservers, and sees one lag (still propagating, 1 of 2)", async () => {
    const { query } = routed();
    const facts = await gatherDnsFacts(DKIM, { query });
    expect(facts.zoneName).toBe(ZONE);
    expect(facts.authoritative).toEqual([
      { server: `${zoneNameServers(fresh.zone)[0]} (${NS_ADDRESSES[0]})`, answer: { values: [KEY] } },
      { server: `${zoneNameServers(fresh.zone)[1]} (${NS_ADDRESSES[1]})`, answer: { nxdomain: true } },
    ]);
    expect(facts.recursive).toEqual({ server: "this machine's resolver", answer: { values: [KEY] } });
    const diagnosis = diagnose({ ...facts, service: SERVICE_SAYS });
    expect(diagnosis.case).toBe("propagating");
    expect(diagnosis.summary).toContain("1 of 2 nameservers");
  });

  it("asks only the server named with --dns, as the zone's nameserver (an old DKIM key)", async () => {
    const { query, asked } = routed();
    const old = { ...DKIM, value: `v=DKIM1; t=s; h=sha256; p=${"N".repeat(300)}` };
    const facts = await gatherDnsFacts(old, { nameservers: [`${HOST}:${fresh.server.port}`], query });
    expect(facts.authoritative).toEqual([
      { server: `${HOST}:${fresh.server.port}`, answer: { values: [KEY] } },
    ]);
    expect(facts.recursive).toBeUndefined();
    expect(asked.every((line) => line.startsWith(`${HOST}:${fresh.server.port} `))).toBe(true);
    expect(diagnose({ ...facts, service: SERVICE_SAYS }).case).toBe("other-value");
  });

  it("asks every server given as the zone's nameservers, and no resolver unless one is given", async () => {
    const { query, asked } = routed();
    const given = [`${HOST}:${fresh.server.port}`, `${HOST}:${lagging.server.port}`];
    const facts = await gatherDnsFacts(DKIM, { nameservers: given, query });
    expect(facts.authoritative).toEqual([
      { server: given[0], answer: { values: [KEY] } },
      { server: given[1], answer: { nxdomain: true } },
    ]);
    expect(facts.recursive).toBeUndefined();
    expect(asked.every((line) => given.some((server) => line.startsWith(`${server} `)))).toBe(true);
    expect(diagnose({ ...facts, service: SERVICE_SAYS }).summary).toContain("1 of 2 nameservers");

    const withResolver = await gatherDnsFacts(DKIM, { nameservers: given, resolver: given[0], query });
    expect(withResolver.recursive).toEqual({ server: given[0], answer: { values: [KEY] } });
  });

  it("finds the record at the zone's name appended twice", async () => {
    const expected: ExpectedRecord = { ...DKIM, name: "postal-cd._domainkey.mail.example.com" };
    addRecord(fresh, { name: `${expected.name}.${ZONE}`, type: "TXT", content: quoteTxt(KEY) });
    const facts = await gatherDnsFacts(expected, { nameservers: [`${HOST}:${fresh.server.port}`] });
    expect(facts.doubled).toEqual([{ server: `${HOST}:${fresh.server.port}`, answer: { values: [KEY] } }]);
    expect(diagnose({ ...facts, service: SERVICE_SAYS }).case).toBe("wrong-name");
  });

  it("judges the SPF record served: over 10 lookups", async () => {
    const name = "spf-heavy.example.com";
    addRecord(fresh, { name: `h.${name}`, type: "A", content: "192.0.2.10" });
    const record = `v=spf1 ${`a:h.${name} `.repeat(11)}include:spf.postal.example ~all`;
    addRecord(fresh, { name, type: "TXT", content: quoteTxt(record) });
    const expected: ExpectedRecord = {
      purpose: "spf",
      name,
      type: "TXT",
      value: "v=spf1 include:spf.postal.example ~all",
    };
    const facts = await gatherDnsFacts(expected, { nameservers: [`${HOST}:${fresh.server.port}`] });
    expect(facts.spf).toMatchObject({ total: 12, limit: 10 });
    expect(diagnose({ ...facts, service: SERVICE_SAYS }).case).toBe("spf-too-many-lookups");
  });

  it("reads a proxied CNAME as DNS serves it: no CNAME at the name", async () => {
    const expected: ExpectedRecord = {
      purpose: "return_path",
      name: "psrp.mail.example.com",
      type: "CNAME",
      value: "rp.postal.example",
    };
    addRecord(fresh, { name: expected.name, type: "CNAME", content: expected.value, proxied: true });
    const facts = await gatherDnsFacts(expected, { nameservers: [`${HOST}:${fresh.server.port}`] });
    expect(facts.authoritative[0].answer).toEqual({ values: [] });
    const zone = {
      name: ZONE,
      records: [{ name: expected.name, type: "CNAME", content: expected.value, proxied: true }],
    };
    expect(diagnose({ ...facts, zone, service: SERVICE_SAYS }).case).toBe("proxied");
  });

  it("counts a server that never answers as a timed-out answer, within the query's bound", async () => {
    // The server never answers, so the bound is what ends the query, whatever the machine's load.
    const address = `${HOST}:${silent.address().port}`;
    const facts = await gatherDnsFacts(DKIM, { nameservers: [address], timeoutMs: 500 });
    expect(facts.authoritative).toEqual([{ server: address, answer: { error: "timed out" } }]);
    expect(diagnose({ ...facts, service: SERVICE_SAYS }).case).toBe("no-answer");
  });

  it("refuses a --dns value that is not a server's address, before asking anything", async () => {
    const { query, asked } = routed();
    await expect(gatherDnsFacts(DKIM, { nameservers: ["dns.example.net"], query })).rejects.toThrow(
      /must be the IP address of a DNS server/,
    );
    expect(asked).toEqual([]);
  });
});
