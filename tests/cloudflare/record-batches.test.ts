import { CloudflareApiError } from "../../provider/cloudflare/api-request";
import type { DnsRecordsApi, RecordBatch } from "../../provider/cloudflare/dns-records";
import { RecordBatches } from "../../provider/cloudflare/record-batches";
import type { ZoneRecord, ZoneRecordBody } from "../../provider/cloudflare/zone-record";

/**
 * The gathering of one process's record creates and deletes into batches, on a fake clock against
 * a scripted API: what each request held, and what each caller got.
 */

/** Timers that fire only when the test moves the clock. */
function fakeClock() {
  let now = 0;
  const timers: { at: number; callback: () => void }[] = [];
  return {
    now: () => now,
    setTimer: (callback: () => void, ms: number) => timers.push({ at: now + ms, callback }),
    async advance(ms: number) {
      now += ms;
      for (;;) {
        const due = timers.filter((timer) => timer.at <= now).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers.splice(timers.indexOf(due), 1);
        due.callback();
        await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const body = (name: string, ttl = 300): ZoneRecordBody => ({
  name,
  type: "TXT",
  content: `"${name}"`,
  ttl,
  proxied: false,
  comment: "pulumi mail/prod",
});

/** An API whose batch refuses any record with a TTL under 60, as Cloudflare does, and makes the rest. */
function scriptedApi() {
  const batches: RecordBatch[] = [];
  const alone: string[] = [];
  let next = 0;
  const made = (post: ZoneRecordBody): ZoneRecord => ({
    id: `r${++next}`,
    ...post,
    comment: post.comment ?? null,
  });
  const refused = () => new CloudflareApiError("Cloudflare batch failed: HTTP 400, 9021 TTL", [9021], 400);
  const api: Pick<DnsRecordsApi, "batch" | "create" | "remove"> = {
    async batch(_zoneId, changes) {
      batches.push(changes);
      if ((changes.posts ?? []).some((post) => post.ttl < 60)) throw refused();
      return { deleted: [...(changes.deletes ?? [])], posted: (changes.posts ?? []).map(made) };
    },
    async create(_zoneId, post) {
      alone.push(`create ${post.name}`);
      if (post.ttl < 60) throw refused();
      return made(post);
    },
    async remove(_zoneId, id) {
      alone.push(`delete ${id}`);
      return id !== "gone";
    },
  };
  return { api, batches, alone };
}

it("gathers the operations under way at once into one batch, and gives each caller its own record", async () => {
  const clock = fakeClock();
  const { api, batches } = scriptedApi();
  const records = new RecordBatches(api, { clock });
  const a = records.create("z", body("a.example.com"));
  const removed = records.remove("z", "old");
  await clock.advance(20);
  const b = records.create("z", body("b.example.com")); // within the quiet time: the same batch
  expect(batches).toEqual([]);
  await clock.advance(50);
  expect(batches).toEqual([{ deletes: ["old"], posts: [body("a.example.com"), body("b.example.com")] }]);
  expect((await a).name).toBe("a.example.com");
  expect((await b).name).toBe("b.example.com");
  expect(await removed).toBe(true);
});

it("sends at most maxOperations a request, one request after another", async () => {
  const clock = fakeClock();
  const { api, batches } = scriptedApi();
  const records = new RecordBatches(api, { clock, maxOperations: 200 });
  const made = Array.from({ length: 450 }, (_, i) => records.create("z", body(`r${i}.example.com`)));
  await clock.advance(50);
  await Promise.all(made);
  expect(batches.map((batch) => batch.posts?.length)).toEqual([200, 200, 50]);
  expect((await made[449]).name).toBe("r449.example.com");
});

it("keeps zones apart, and a caller after a batch was sent waits for the next one", async () => {
  const clock = fakeClock();
  const { api, batches } = scriptedApi();
  const records = new RecordBatches(api, { clock });
  const first = [records.create("z1", body("a.example.com")), records.create("z2", body("b.example.com"))];
  await clock.advance(50);
  await Promise.all(first);
  const later = records.create("z1", body("c.example.com"));
  await clock.advance(50);
  await later;
  expect(batches.map((batch) => batch.posts?.map((post) => post.name))).toEqual([
    ["a.example.com"],
    ["b.example.com"],
    ["c.example.com"],
  ]);
});

it("when Cloudflare refuses a batch for one operation, sends each alone: only that one fails", async () => {
  const clock = fakeClock();
  const { api, batches, alone } = scriptedApi();
  const records = new RecordBatches(api, { clock });
  const good = records.create("z", body("good.example.com"));
  const bad = records.create("z", body("bad.example.com", 5)).then(
    () => undefined,
    (error: unknown) => error as Error,
  );
  const gone = records.remove("z", "gone");
  await clock.advance(50);
  expect((await good).name).toBe("good.example.com");
  expect((await bad)?.message).toMatch("9021 TTL");
  expect(await gone).toBe(false);
  expect(batches).toHaveLength(1);
  expect(alone.sort()).toEqual(["create bad.example.com", "create good.example.com", "delete gone"]);
});

it("fails every operation of a batch that failed otherwise (no answer after its retries), sending nothing alone", async () => {
  const clock = fakeClock();
  const lost = new CloudflareApiError("Cloudflare batch failed: no answer", [], undefined);
  const alone: string[] = [];
  const records = new RecordBatches(
    {
      batch: async () => {
        throw lost;
      },
      create: async (_z, post) => {
        alone.push(post.name);
        throw new Error("not expected");
      },
      remove: async () => true,
    },
    { clock },
  );
  const failed = (name: string) =>
    records.create("z", body(name)).then(
      () => undefined,
      (error: unknown) => error,
    );
  const made = [failed("a.example.com"), failed("b.example.com")];
  await clock.advance(50);
  expect(await Promise.all(made)).toEqual([lost, lost]);
  expect(alone).toEqual([]);
});

it("with a window of zero, sends each operation at once, alone", async () => {
  const clock = fakeClock();
  const { api, batches } = scriptedApi();
  const records = new RecordBatches(api, { clock, gather: { quietMs: 0, maxMs: 0 } });
  const made = await Promise.all([
    records.create("z", body("a.example.com")),
    records.create("z", body("b.example.com")),
  ]);
  expect(made.map((record) => record.name)).toEqual(["a.example.com", "b.example.com"]);
  expect(batches.map((batch) => batch.posts?.length)).toEqual([1, 1]);
  expect(() => new RecordBatches(api, { maxOperations: 0 })).toThrow("maxOperations must be a whole number");
});
