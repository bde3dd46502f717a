import type { DnsRecordsApi } from "../../provider/cloudflare/dns-records";
import { forgetFreshZoneReads, freshRecordsAt } from "../../provider/cloudflare/fresh-zone-reads";
import type { ZoneRecord } from "../../provider/cloudflare/zone-record";

/**
 * Reads of the zone for claimed records' writes: each caller is answered by a read sent after it
 * asked, shared by the callers that asked before it was sent. Against a fake API whose reads are
 * held open until the test lets them answer, so the order of asking and sending is the test's.
 */

const ZONE = "023e105f4ecef8ad9ca31a8372d0c353";
const ACCOUNT = { baseUrl: "http://127.0.0.1:1/client/v4", apiToken: "t".repeat(40) };

function record(name: string, content = "x"): ZoneRecord {
  return { id: `${name}-${content}`, name, type: "TXT", content, ttl: 300, proxied: false, comment: null };
}

/** A zone whose reads wait for `answer()`, each answering with the zone as it was when sent. */
function heldZone(initial: ZoneRecord[]) {
  const zone = [...initial];
  const reads: { kind: string; release: () => void }[] = [];
  const hold = <T>(kind: string, value: () => T) => {
    const answer = value();
    return new Promise<T>((resolve) => reads.push({ kind, release: () => resolve(answer) }));
  };
  const api = {
    listZone: () => hold("zone", () => [...zone]),
    list: (_zone: string, filter: { name: string }) =>
      hold(`name ${filter.name}`, () => zone.filter((r) => r.name === filter.name)),
  } as unknown as DnsRecordsApi;
  return {
    api,
    zone,
    sent: () => reads.map((read) => read.kind),
    /** Lets every read sent so far answer, then lets their callers run. */
    async answer() {
      for (const read of reads.splice(0)) read.release();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

beforeEach(() => forgetFreshZoneReads());

it("answers a burst of callers with one read of the zone, each with the records at its name", async () => {
  const fake = heldZone([record("a.example.com"), record("b.example.com"), record("b.example.com", "y")]);
  const asked = ["a.example.com", "B.example.com.", "c.example.com"].map((name) =>
    freshRecordsAt(fake.api, ACCOUNT, ZONE, name),
  );
  await settle();
  expect(fake.sent()).toEqual(["zone"]);
  await fake.answer();
  const [a, b, c] = await Promise.all(asked);
  expect(a.map((r) => r.content)).toEqual(["x"]);
  expect(b.map((r) => r.content)).toEqual(["x", "y"]);
  expect(c).toEqual([]);
});

it("answers a caller that asks while a read is under way with the next read, which sees what changed meanwhile", async () => {
  const fake = heldZone([]);
  const first = freshRecordsAt(fake.api, ACCOUNT, ZONE, "a.example.com");
  await settle();
  fake.zone.push(record("a.example.com", "made since the first read was sent"));
  const second = freshRecordsAt(fake.api, ACCOUNT, ZONE, "a.example.com");
  const third = freshRecordsAt(fake.api, ACCOUNT, ZONE, "a.example.com");
  await settle();
  expect(fake.sent()).toEqual(["zone"]); // the next read waits for the first to settle
  await fake.answer();
  expect(await first).toEqual([]);
  expect(fake.sent()).toEqual(["zone"]); // one more, shared by both later callers
  await fake.answer();
  expect((await second).map((r) => r.content)).toEqual(["made since the first read was sent"]);
  expect(await third).toEqual(await second);
});

it("reads by name when the callers of a read ask about fewer names than the whole zone takes requests", async () => {
  // A zone of 12,000 records takes 3 requests whole; after that, one or two names cost less.
  const fake = heldZone(Array.from({ length: 12_000 }, (_, i) => record(`h${i}.example.com`)));
  const whole = freshRecordsAt(fake.api, ACCOUNT, ZONE, "h1.example.com");
  await settle();
  await fake.answer();
  // A whole read of several pages is offset paging: each name it was asked for is confirmed alone.
  expect(fake.sent()).toEqual(["name h1.example.com"]);
  await fake.answer();
  await whole;
  const later = ["h2.example.com", "h3.example.com"].map((name) =>
    freshRecordsAt(fake.api, ACCOUNT, ZONE, name),
  );
  await settle();
  expect(fake.sent()).toEqual(["name h2.example.com", "name h3.example.com"]);
  await fake.answer();
  expect((await Promise.all(later)).map((records) => records.length)).toEqual([1, 1]);
});

it("keeps zones and accounts apart", async () => {
  const fake = heldZone([]);
  const other = { ...ACCOUNT, apiToken: "u".repeat(40) };
  void freshRecordsAt(fake.api, ACCOUNT, ZONE, "a.example.com");
  void freshRecordsAt(fake.api, other, ZONE, "a.example.com");
  void freshRecordsAt(fake.api, ACCOUNT, "f".repeat(32), "a.example.com");
  await settle();
  expect(fake.sent()).toEqual(["zone", "zone", "zone"]);
  await fake.answer();
});

it("gives a failed read's error to its callers, and the next caller reads again", async () => {
  let fail = true;
  let reads = 0;
  const api = {
    listZone: async () => {
      reads += 1;
      if (fail) throw new Error("Cloudflare list of the records of zone z failed: HTTP 503");
      return [record("a.example.com")];
    },
  } as unknown as DnsRecordsApi;
  await expect(
    Promise.all([
      freshRecordsAt(api, ACCOUNT, ZONE, "a.example.com"),
      freshRecordsAt(api, ACCOUNT, ZONE, "b.example.com"),
    ]),
  ).rejects.toThrow("HTTP 503");
  fail = false;
  expect(await freshRecordsAt(api, ACCOUNT, ZONE, "a.example.com")).toHaveLength(1);
  expect(reads).toBe(2);
});
