import type { ZoneRecord } from "../../provider/cloudflare/zone-record";
import {
  forgetZoneViews,
  viewAdded,
  viewRemoved,
  zoneView,
  ZONE_VIEW_MAX_AGE_MS,
} from "../../provider/cloudflare/zone-view";

/** The process's view of a zone (zone-view.ts): whole-zone reads shared for a few seconds, own writes applied. */

const account = { baseUrl: "https://cloudflare.test/client/v4", apiToken: "token-a" };
const record = (id: string, name = `${id}.example.com`): ZoneRecord => ({
  id,
  name,
  type: "TXT",
  content: `"${id}"`,
  ttl: 300,
  proxied: false,
  comment: null,
});

/** A zone whose reads are counted, answering what it holds when each read is sent. */
function zone(records: ZoneRecord[]) {
  const reads: number[] = [];
  return {
    reads,
    records,
    api: {
      listZone: async () => {
        reads.push(reads.length + 1);
        return [...records];
      },
    },
  };
}

beforeEach(() => forgetZoneViews());

it("serves every caller within the age from one read, and reads again once it is older", async () => {
  const z = zone([record("a"), record("b")]);
  let now = 1_000;
  const clock = () => now;
  const [first, second] = await Promise.all([
    zoneView(z.api, account, "zone-1", clock),
    zoneView(z.api, account, "zone-1", clock),
  ]);
  expect([...first.keys()]).toEqual(["a", "b"]);
  expect(second).toBe(first);
  now += ZONE_VIEW_MAX_AGE_MS - 1;
  await zoneView(z.api, account, "zone-1", clock);
  expect(z.reads).toHaveLength(1);
  z.records.push(record("c"));
  now += 1;
  expect([...(await zoneView(z.api, account, "zone-1", clock)).keys()]).toEqual(["a", "b", "c"]);
  expect(z.reads).toHaveLength(2);
});

it("holds this process's creates and deletes since the read", async () => {
  const z = zone([record("a")]);
  const clock = () => 5;
  await zoneView(z.api, account, "zone-1", clock);
  await viewAdded(account, "zone-1", record("made"));
  await viewRemoved(account, "zone-1", "a");
  expect([...(await zoneView(z.api, account, "zone-1", clock)).keys()]).toEqual(["made"]);
  expect(z.reads).toHaveLength(1);
});

it("keeps zones and accounts apart", async () => {
  const z = zone([record("a")]);
  const clock = () => 5;
  await zoneView(z.api, account, "zone-1", clock);
  await zoneView(z.api, account, "zone-2", clock);
  await zoneView(z.api, { ...account, apiToken: "token-b" }, "zone-1", clock);
  expect(z.reads).toHaveLength(3);
});

it("does not share a failed read: the next caller reads again", async () => {
  let fail = true;
  const api = {
    listZone: async () => {
      if (fail) throw new Error("Cloudflare GET 500");
      return [record("a")];
    },
  };
  const clock = () => 5;
  await expect(zoneView(api, account, "zone-1", clock)).rejects.toThrow("500");
  fail = false;
  expect([...(await zoneView(api, account, "zone-1", clock)).keys()]).toEqual(["a"]);
});
