import * as dgram from "node:dgram";
import * as net from "node:net";
import * as dnsPacket from "dns-packet";
import { addZone, cloudflareService } from "../../emulator/cloudflare";
import { startDnsServer } from "../../emulator/dns";
import { lookup } from "../../emulator/dns/lookup";
import { defaultMailDnsConfig } from "../../emulator/config";
import { SERVICE_SPF, withServiceRecords } from "../../emulator/dns/service-records";
import { TcpFrameReader, frameTcpMessage } from "../../emulator/dns/tcp-framing";
import { FaultInjector } from "../../emulator/http/faults";
import { RequestLog } from "../../emulator/http/request-log";
import { RunningService, startHttpService } from "../../emulator/http/service";
import { CloudflareDnsRecord, ZoneRecord } from "../../emulator/store/state";
import { Store } from "../../emulator/store/store";
import { storeRecord } from "../support/store-records";
import { resolverAt } from "../support/dns-client";

const HOST = "127.0.0.1";
const TOKEN = "dns-test-token-0123456789abcdefghijklmnop";

let store: Store;
let zone: ZoneRecord;
let dns: { host: string; port: number; close(): Promise<void> };
let cloudflare: RunningService;

/** Puts a record straight into the store, as the stand-in would have stored it. */
function addRecord(fields: Parameters<typeof storeRecord>[2]): CloudflareDnsRecord {
  return storeRecord(store, zone, fields);
}

/*
 * This process both asks and serves: on a loaded machine an answer waits for this event loop's
 * turn, and a timer that falls due meanwhile runs before the answer is read. So every client here
 * waits generously and asks again; on a quiet machine answers come in milliseconds and the bounds
 * cost nothing. No timer decides a test, except by giving up after about 15 s without an answer.
 */

/** node's resolver asking this server (`resolverAt`: fresh, 3 tries). */
const resolver = () => resolverAt(`${HOST}:${dns.port}`);

/** A raw exchange sends again after this, then after twice as long each time… */
const UDP_RESEND_MS = 1000;
/** …and fails once this long has passed without the answer. */
const UDP_GIVE_UP_MS = 15_000;

/**
 * Sends `messages` in order from `socket`, and again (all of them, in order) 1 s, 3 s and 7 s
 * later, until a datagram `isLast` accepts comes back: every datagram received until then, that
 * one last. Fails after 15 s.
 */
function exchange(socket: dgram.Socket, messages: Buffer[], isLast: (datagram: Buffer) => boolean) {
  return new Promise<Buffer[]>((resolve, reject) => {
    const started = Date.now();
    const received: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const onMessage = (datagram: Buffer) => {
      received.push(datagram);
      if (!isLast(datagram)) return;
      clearTimeout(timer);
      socket.off("message", onMessage);
      resolve(received);
    };
    const send = (pause: number) => {
      for (const message of messages) socket.send(message, dns.port, HOST);
      const left = UDP_GIVE_UP_MS - (Date.now() - started);
      timer =
        pause < left
          ? setTimeout(() => send(pause * 2), pause)
          : setTimeout(() => {
              socket.off("message", onMessage);
              reject(new Error(`no answer from the DNS server in ${UDP_GIVE_UP_MS} ms`));
            }, left);
    };
    socket.on("message", onMessage);
    send(UDP_RESEND_MS);
  });
}

/** Runs `use` with a UDP socket of its own, closed afterwards. */
async function withSocket<T>(use: (socket: dgram.Socket) => Promise<T>): Promise<T> {
  const socket = dgram.createSocket("udp4");
  try {
    return await use(socket);
  } finally {
    socket.close();
  }
}

/** The server's answer to one message, from a socket of its own (nothing else sends to it). */
const udpQuery = (message: Buffer): Promise<Buffer> =>
  withSocket(async (socket) => (await exchange(socket, [message], () => true))[0]);

/** A query with an id and a name of its own, so its answer is known among others'. */
const PROBE_ID = 4343;
const probe = () => query("probe.example.com", "A", { id: PROBE_ID });
const isProbeAnswer = (datagram: Buffer) => {
  try {
    const answer = dnsPacket.decode(datagram);
    return answer.id === PROBE_ID && answer.questions?.[0]?.name === "probe.example.com";
  } catch {
    return false;
  }
};

/**
 * What comes back from the server for `messages` sent from `socket` ahead of a probe query, and the
 * probe's answer. The server reads one socket's datagrams in order and queues its answer to each
 * before it reads the next, so whatever it answers to `messages` arrives before the probe's answer:
 * "no answer" is seen by the probe's answer coming first, not by a timer running out.
 */
async function beforeProbe(socket: dgram.Socket, messages: Buffer[]) {
  const received = await exchange(socket, [...messages, probe()], isProbeAnswer);
  return { before: received.slice(0, -1), probe: dnsPacket.decode(received[received.length - 1]) };
}

const query = (name: string, type: dnsPacket.RecordType, extra: dnsPacket.Packet = {}) =>
  dnsPacket.encode({
    type: "query",
    id: 4242,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type }],
    ...extra,
  });

const LONG = "k".repeat(255);

beforeAll(async () => {
  store = new Store();
  zone = addZone(store, "example.com");
  addZone(store, "sub.example.com");
  addRecord({ name: "example.com", type: "TXT", content: '"v=spf1 include:spf.example.net ~all"' });
  addRecord({ name: "multi.example.com", type: "TXT", content: '"abc" "d\\"e\\\\f" "ghi"' });
  addRecord({ name: "bare.example.com", type: "TXT", content: "x".repeat(300) });
  addRecord({ name: "example.com", type: "MX", content: "mx1.example.net", priority: 10 });
  addRecord({ name: "example.com", type: "MX", content: "mx2.example.net", priority: 20 });
  addRecord({ name: "example.com", type: "A", content: "192.0.2.1" });
  addRecord({ name: "www.example.com", type: "CNAME", content: "example.com" });
  addRecord({ name: "out.example.com", type: "CNAME", content: "elsewhere.example.net" });
  addRecord({ name: "a.b.deep.example.com", type: "A", content: "192.0.2.2" });
  for (let i = 0; i < 6; i++)
    addRecord({ name: "big.example.com", type: "TXT", content: `"${i}${LONG.slice(1)}" "${LONG}"` });
  dns = await startDnsServer({ store, host: HOST, port: 0 });
  cloudflare = await startHttpService(
    cloudflareService({ store, config: { apiToken: TOKEN, splitLongTxt: true } }),
    {
      host: HOST,
      port: 0,
      faults: new FaultInjector(),
      log: new RequestLog(),
    },
  );
});

afterAll(async () => {
  await dns?.close();
  await cloudflare?.close();
});

describe("pure parts", () => {
  test("TcpFrameReader joins split chunks and splits joined ones", () => {
    const reader = new TcpFrameReader();
    const framed = Buffer.concat([
      frameTcpMessage(Buffer.from("one")),
      frameTcpMessage(Buffer.from("three")),
    ]);
    expect(reader.push(framed.subarray(0, 1))).toEqual([]);
    expect(reader.push(framed.subarray(1, 6)).map(String)).toEqual(["one"]);
    expect(reader.push(framed.subarray(6)).map(String)).toEqual(["three"]);
  });

  test("lookup: longest zone wins, NXDOMAIN vs empty NOERROR, REFUSED outside", () => {
    const data = store.state.cloudflare;
    const sub = data.zones.find((z) => z.name === "sub.example.com")!;
    const nx = lookup(data, "x.sub.example.com", "A");
    expect(nx.rcode).toBe("NXDOMAIN");
    expect(nx.authorities[0]).toMatchObject({ type: "SOA", name: sub.name });
    expect(lookup(data, "deep.example.com", "A")).toMatchObject({ rcode: "NOERROR", answers: [] });
    expect(lookup(data, "example.org", "A")).toMatchObject({ rcode: "REFUSED", authoritative: false });
    expect(lookup(data, "EXAMPLE.com", "SOA").answers).toHaveLength(1);
    expect(lookup(data, "example.com", "NS").answers.map((a) => a.type)).toEqual(["NS", "NS"]);
  });

  test("lookup: a CNAME answers other types and is followed inside the zones", () => {
    const result = lookup(store.state.cloudflare, "WWW.example.com", "A");
    expect(result.answers.map((a) => [a.name, a.type])).toEqual([
      ["WWW.example.com", "CNAME"],
      ["example.com", "A"],
    ]);
  });
});

describe("over the wire with node's resolver", () => {
  test("TXT with several character-strings, escapes decoded", async () => {
    await expect(resolver().resolveTxt("multi.example.com")).resolves.toEqual([["abc", 'd"e\\f', "ghi"]]);
    await expect(resolver().resolveTxt("example.com")).resolves.toEqual([
      ["v=spf1 include:spf.example.net ~all"],
    ]);
  });

  test("unquoted TXT content is one value in 255-byte strings", async () => {
    await expect(resolver().resolveTxt("bare.example.com")).resolves.toEqual([
      ["x".repeat(255), "x".repeat(45)],
    ]);
  });

  test("MX with priorities", async () => {
    const mx = await resolver().resolveMx("example.com");
    expect(mx.sort((a, b) => a.priority - b.priority)).toEqual([
      { priority: 10, exchange: "mx1.example.net" },
      { priority: 20, exchange: "mx2.example.net" },
    ]);
  });

  test("CNAME, and A through a CNAME", async () => {
    await expect(resolver().resolveCname("www.example.com")).resolves.toEqual(["example.com"]);
    await expect(resolver().resolve4("www.example.com")).resolves.toEqual(["192.0.2.1"]);
  });

  test("ENOTFOUND for a name that does not exist, ENODATA for a missing type", async () => {
    await expect(resolver().resolveTxt("nothing.example.com")).rejects.toMatchObject({ code: "ENOTFOUND" });
    await expect(resolver().resolveMx("multi.example.com")).rejects.toMatchObject({ code: "ENODATA" });
    // An empty non-terminal exists: a name below it has records.
    await expect(resolver().resolve4("b.deep.example.com")).rejects.toMatchObject({ code: "ENODATA" });
  });

  test("REFUSED outside the zones", async () => {
    await expect(resolver().resolve4("example.org")).rejects.toMatchObject({ code: "EREFUSED" });
  });

  test("a record created through the Cloudflare stand-in answers at once", async () => {
    await expect(resolver().resolveTxt("fresh.example.com")).rejects.toMatchObject({ code: "ENOTFOUND" });
    const response = await fetch(`${cloudflare.url}/client/v4/zones/${zone.id}/dns_records`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "fresh",
        type: "TXT",
        content: '"hello" "world"',
        ttl: 60,
        proxied: false,
      }),
    });
    expect(response.status).toBe(200);
    await expect(resolver().resolveTxt("fresh.example.com")).resolves.toEqual([["hello", "world"]]);
  });

  test("a TXT answer too big for UDP is truncated and then fetched over TCP", async () => {
    const udp = dnsPacket.decode(await udpQuery(query("big.example.com", "TXT")));
    expect(udp.flag_tc).toBe(true);
    expect(udp.answers).toEqual([]);
    const txt = await resolver().resolveTxt("big.example.com");
    expect(txt).toHaveLength(6);
    expect(txt.every((strings) => strings.length === 2 && strings[1] === LONG)).toBe(true);
  });
});

describe("raw messages", () => {
  test("echoes id and question, sets AA, puts the SOA in authority on NXDOMAIN", async () => {
    const answer = dnsPacket.decode(await udpQuery(query("Nope.Example.com", "A")));
    expect(answer).toMatchObject({
      id: 4242,
      type: "response",
      flag_aa: true,
      flag_rd: true,
      rcode: "NXDOMAIN",
      questions: [{ name: "Nope.Example.com", type: "A", class: "IN" }],
      answers: [],
    });
    expect(answer.authorities).toMatchObject([{ type: "SOA", name: "example.com" }]);
  });

  test("an EDNS0 payload size lets a big answer through UDP, with an OPT in reply", async () => {
    const opt: dnsPacket.Answer = {
      type: "OPT",
      name: ".",
      udpPayloadSize: 8192,
      extendedRcode: 0,
      ednsVersion: 0,
      flags: 0,
      flag_do: false,
      options: [],
    };
    const answer = dnsPacket.decode(await udpQuery(query("big.example.com", "TXT", { additionals: [opt] })));
    expect(answer.flag_tc).toBe(false);
    expect(answer.answers).toHaveLength(6);
    expect(answer.additionals?.map((a) => a.type)).toEqual(["OPT"]);
  });

  test("garbage gets FORMERR or nothing, and the server keeps answering", async () => {
    const formerr = await udpQuery(Buffer.from("0102000100000000000000ffff", "hex"));
    expect(dnsPacket.decode(formerr)).toMatchObject({ id: 0x0102, rcode: "FORMERR" });
    // Nothing for a runt: the probe sent after it is the first thing answered.
    const runt = await withSocket((socket) => beforeProbe(socket, [Buffer.from([1, 2, 3])]));
    expect(runt.before).toEqual([]);
    expect(runt.probe).toMatchObject({ rcode: "NXDOMAIN", questions: [{ name: "probe.example.com" }] });
    // A burst of random datagrams (fixed seed, so a failure is repeatable), then a probe from the
    // same socket, whose answer comes after the server has handled the burst; then a real query.
    await withSocket(async (socket) => {
      let seed = 7;
      const nextByte = () => (seed = (seed * 1103515245 + 12345) % 2147483648) & 0xff;
      for (let i = 0; i < 200; i++) {
        const packet = Buffer.from(Array.from({ length: 12 + (nextByte() % 80) }, nextByte));
        packet[2] &= 0x7f; // a query, so the server parses it
        socket.send(packet, dns.port, HOST);
      }
      const burst = await beforeProbe(socket, []);
      expect(burst.probe).toMatchObject({ rcode: "NXDOMAIN" });
    });
    await expect(resolver().resolve4("example.com")).resolves.toEqual(["192.0.2.1"]);
  });

  test("TCP: several length-prefixed queries on one connection", async () => {
    const socket = net.connect(dns.port, HOST);
    const reader = new TcpFrameReader();
    const answers: dnsPacket.DecodedPacket[] = [];
    const done = new Promise<void>((resolve) =>
      socket.on("data", (chunk: Buffer) => {
        answers.push(...reader.push(chunk).map((message) => dnsPacket.decode(message)));
        if (answers.length === 2) resolve();
      }),
    );
    socket.write(
      Buffer.concat([
        frameTcpMessage(query("example.com", "MX")),
        frameTcpMessage(query("big.example.com", "TXT")),
      ]),
    );
    await done;
    socket.destroy();
    expect(answers.map((a) => [a.answers?.length, a.flag_tc])).toEqual([
      [2, false],
      [6, false],
    ]);
  });
});

describe("the service's own SPF record", () => {
  const data = () => ({ zones: [zone], records: store.state.cloudflare.records });
  const installation = defaultMailDnsConfig();

  it("is answered at dns.spf_include, though no zone record holds it (a zone read does not see it)", () => {
    const answered = lookup(withServiceRecords(data(), installation), "spf.postal.example.com", "TXT");
    expect(answered.answers).toEqual([
      expect.objectContaining({ type: "TXT", data: [Buffer.from(SERVICE_SPF)] }),
    ]);
    expect(store.state.cloudflare.records.some((r) => r.name === "spf.postal.example.com")).toBe(false);
  });

  it("gives way to a record of the zone at that name, and to nothing outside the stand-in's zones", () => {
    addRecord({ name: "spf.postal.example.com", type: "TXT", content: '"v=spf1 -all"' });
    const answered = lookup(withServiceRecords(data(), installation), "spf.postal.example.com", "TXT");
    expect(answered.answers).toEqual([expect.objectContaining({ data: [Buffer.from("v=spf1 -all")] })]);
    const elsewhere = {
      ...installation,
      spfInclude: "spf.postal.example.net",
      returnPathDomain: "rp.postal.example.net",
      mxRecords: ["mx.postal.example.net"],
    };
    expect(withServiceRecords(data(), elsewhere, "AAAA").records).toEqual(data().records);
  });
});
