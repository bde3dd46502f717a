import { dnsRecordsApi, DnsRecordsApi } from "../../provider/cloudflare/dns-records";
import { RecordBatches } from "../../provider/cloudflare/record-batches";
import type { ZoneRecordBody } from "../../provider/cloudflare/zone-record";
import { useEmulator } from "../support/emulator";

/**
 * The client's batch (`dns_records/batch`): deletes and creates in one request, all or nothing,
 * against the emulator's stand-in and its faults. A batch's answer lost is looked up in the zone
 * before anything is sent again. Waits between retries are recorded, not slept.
 */
const emulator = useEmulator();
let api: DnsRecordsApi;
let zoneId: string;
let counter = 0;

beforeEach(() => {
  zoneId = emulator().cloudflare.zones[0].id;
  api = dnsRecordsApi({
    baseUrl: emulator().cloudflare.url,
    apiToken: emulator().cloudflare.apiToken,
    sleep: async () => undefined,
  });
  emulator().faults.set([]);
  emulator().requests.clear();
});
afterAll(() => emulator().faults.set([]));

const txt = (content: string): ZoneRecordBody => ({
  name: `batch${++counter}-${process.pid}.example.com`,
  type: "TXT",
  content: `"${content}"`,
  ttl: 300,
  proxied: false,
  comment: "pulumi mail/prod: email spf",
});
const batches = () =>
  emulator()
    .requests.all()
    .filter((entry) => entry.endpoint === "cloudflare:dns_records.batch");
const held = (body: ZoneRecordBody) =>
  emulator()
    .cloudflare.records(zoneId)
    .filter((record) => record.name === body.name);

it("deletes and creates in one request, and gives the records made in the order asked", async () => {
  const old = await api.create(zoneId, txt("old"));
  const [a, b] = [txt("a"), txt("b")];
  const result = await api.batch(zoneId, { deletes: [old.id], posts: [a, b] });
  expect(result.deleted).toEqual([old.id]);
  expect(result.posted.map((record) => [record.name, record.content])).toEqual([
    [a.name, a.content],
    [b.name, b.content],
  ]);
  expect(await api.get(zoneId, old.id)).toBeUndefined();
  expect(batches()).toHaveLength(1);
  expect(await api.batch(zoneId, {})).toEqual({ deleted: [], posted: [] }); // nothing sent
  expect(batches()).toHaveLength(1);
});

it("a batch whose answer is lost after Cloudflare did it is found in the zone, not sent again", async () => {
  const old = await api.create(zoneId, txt("old"));
  const post = txt("once");
  emulator().faults.set([{ endpoints: "cloudflare:dns_records.batch", commitThenDropRate: 1, times: 1 }]);
  const result = await api.batch(zoneId, { deletes: [old.id], posts: [post] });
  expect(result.posted.map((record) => record.id)).toEqual(held(post).map((record) => record.id));
  expect(held(post)).toHaveLength(1);
  expect(batches()).toHaveLength(1);
});

it("a batch whose connection dropped before Cloudflare did it is sent again, once", async () => {
  const post = txt("again");
  emulator().faults.set([{ endpoints: "cloudflare:dns_records.batch", dropRate: 1, times: 1 }]);
  const result = await api.batch(zoneId, { posts: [post] });
  expect(held(post)).toHaveLength(1);
  expect(result.posted[0].id).toBe(held(post)[0].id);
  expect(batches()).toHaveLength(2);
});

it("refuses, naming Cloudflare's error, a batch with a bad operation, and changes nothing", async () => {
  const keep = await api.create(zoneId, txt("keep"));
  const bad = { ...txt("bad"), ttl: 5 };
  const error = await api.batch(zoneId, { deletes: [keep.id], posts: [txt("fine"), bad] }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toMatch(/batch of 1 deletes and 2 creates failed.*HTTP 400/);
  expect(await api.get(zoneId, keep.id)).toMatchObject({ id: keep.id });
  expect(held(bad)).toEqual([]);
});

it("stops when a lost answer leaves part of the batch in the zone: someone else changed these records", async () => {
  const old = await api.create(zoneId, txt("old"));
  const post = txt("new");
  // The answer is lost before anything is done, and meanwhile someone deletes the record by hand.
  emulator().faults.set([{ endpoints: "cloudflare:dns_records.batch", dropRate: 1, times: 1 }]);
  await emulator().cloudflare.removeRecord(zoneId, old.id);
  const error = await api.batch(zoneId, { deletes: [old.id], posts: [post] }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toMatch(/the zone holds part of it: someone changed these records meanwhile/);
  expect(held(post)).toEqual([]);
  expect(batches()).toHaveLength(1);
});

it("RecordBatches over the client: 250 records made at once cost 2 requests, each caller its own record", async () => {
  const records = new RecordBatches(api);
  const bodies = Array.from({ length: 250 }, (_, i) => txt(`many-${i}`));
  const made = await Promise.all(bodies.map((body) => records.create(zoneId, body)));
  expect(made.map((record) => record.content)).toEqual(bodies.map((body) => body.content));
  expect(batches().map((entry) => entry.status)).toEqual([200, 200]);
  expect(await Promise.all(made.map((record) => records.remove(zoneId, record.id)))).toEqual(
    made.map(() => true),
  );
  expect(batches()).toHaveLength(4);
  expect(bodies.flatMap(held)).toEqual([]);
});
