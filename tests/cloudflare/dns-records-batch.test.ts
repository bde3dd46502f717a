import * as http from "node:http";
import type { AddressInfo } from "node:net";
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

it("sends again a batch whose answer was lost before it was done, though a record it deletes was deleted by hand meanwhile", async () => {
  const old = await api.create(zoneId, txt("old"));
  const post = txt("new");
  // The answer is lost before anything is done, and meanwhile someone deletes the record by hand:
  // no create of the batch is in the zone, so it was not done. The resend is refused for the
  // record gone, and the batches send each operation alone.
  emulator().faults.set([{ endpoints: "cloudflare:dns_records.batch", dropRate: 1, times: 1 }]);
  await emulator().cloudflare.removeRecord(zoneId, old.id);
  const records = new RecordBatches(api);
  const [deleted, made] = await Promise.all([records.remove(zoneId, old.id), records.create(zoneId, post)]);
  expect(deleted).toBe(false);
  expect(made.id).toBe(held(post)[0].id);
  expect(held(post)).toHaveLength(1);
});

it("sends again a batch of deletes whose answer was lost before it was done: one of them deleted by hand meanwhile", async () => {
  const [a, b] = [await api.create(zoneId, txt("a")), await api.create(zoneId, txt("b"))];
  emulator().faults.set([{ endpoints: "cloudflare:dns_records.batch", dropRate: 1, times: 1 }]);
  await emulator().cloudflare.removeRecord(zoneId, b.id);
  const records = new RecordBatches(api);
  expect(await Promise.all([records.remove(zoneId, a.id), records.remove(zoneId, b.id)])).toEqual([
    true,
    false,
  ]);
  expect(await api.get(zoneId, a.id)).toBeUndefined();
});

it("a batch done after its request timed out, and after the lookup found nothing, is found when its resend is refused as identical", async () => {
  // The first batch outlives the client's timeout (1 s) and is done at 1.5 s, after the lookup
  // found nothing; the resend (0.75 s on its way) then comes after it and is refused as identical.
  // On a busy machine the lookup may come later and find it done: the records are made once and
  // given back either way. The timeout is the lookup's too: a second leaves it room for a garbage
  // collection or a descheduled worker, where 200 ms did not.
  const slow = dnsRecordsApi({
    baseUrl: emulator().cloudflare.url,
    apiToken: emulator().cloudflare.apiToken,
    requestTimeoutMs: 1000,
    sleep: async () => undefined,
  });
  const posts = [txt("late-a"), txt("late-b")];
  emulator().faults.set([
    { endpoints: "cloudflare:dns_records.batch", latencyMs: 1500, times: 1 },
    { endpoints: "cloudflare:dns_records.batch", latencyMs: 750, times: 1 },
  ]);
  const result = await slow.batch(zoneId, { posts });
  expect(result.posted.map((record) => record.id)).toEqual(posts.map((post) => held(post)[0].id));
  // The slow request is logged once it is answered: waited for, so it is this test's.
  for (
    let waited = 0;
    batches().filter((entry) => entry.latencyMs > 0).length < 2 && waited < 20_000;
    waited += 20
  )
    await new Promise((resolve) => setTimeout(resolve, 20));
  for (const post of posts) expect(held(post)).toHaveLength(1);
});

it("stops when a lost answer leaves part of the batch's creates in the zone: someone else made one of them", async () => {
  const [mine, theirs] = [txt("mine"), txt("theirs")];
  emulator().faults.set([{ endpoints: "cloudflare:dns_records.batch", dropRate: 1, times: 1 }]);
  await emulator().cloudflare.addRecord(zoneId, { ...theirs, comment: theirs.comment ?? undefined });
  const error = await api.batch(zoneId, { posts: [mine, theirs] }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toMatch(/the zone holds part of it: someone changed these records meanwhile/);
  expect(held(mine)).toEqual([]);
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

it("refuses an answer with fewer records than the batch created, instead of giving records to the wrong callers", async () => {
  // Not Cloudflare's answer: a proxy or an API of another shape on the base URL.
  const server = http.createServer((_request, response) => {
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ success: true, errors: [], result: { deletes: [], posts: [] } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const odd = dnsRecordsApi({
      baseUrl: `http://127.0.0.1:${port}/client/v4`,
      apiToken: "t",
      sleep: async () => undefined,
    });
    await expect(odd.batch("zone", { posts: [txt("x")] })).rejects.toThrow(
      /batch of 0 deletes and 1 creates failed.*Cloudflare answered 0 records for 1 creates/s,
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
