import { promises as dns } from "node:dns";
import { Domain } from "../../provider";
import { quoteTxt, unquoteTxt } from "../../provider/dns";
import { useEmulator } from "../support/emulator";
import { destroyRun, runProgram } from "../../testing";

/**
 * Found by a review of the zone reads: a zone read page by page (100 records a page, by
 * offset, as the Cloudflare provider's getDnsRecords reads it) while someone else deletes a record
 * (an ACME client cleaning up its `_acme-challenge` TXT record, say). Its own emulator, so the
 * zone's size and order are known. The test failed on the code as reviewed.
 */

const emulator = useEmulator();
let zoneId: string;

beforeAll(() => {
  zoneId = emulator().cloudflare.zones[0].id;
  dns.setServers([emulator().dns.address]);
});
afterEach(() => emulator().faults.set([]));

const all = () => emulator().cloudflare.records(zoneId);
const LIST = "cloudflare:dns_records.list";

describe("a whole-zone read of several pages while another actor deletes a record", () => {
  it("does not miss the user's SPF record (the read is not complete just because it came back under maxItems)", async () => {
    const name = `paged-${process.pid}.example.com`;
    // Fill the zone to 100 records (page 1), then the user's SPF record (record 101: page 2), then a few more.
    const fillers: string[] = [];
    for (let i = (await all()).length; i < 100; i++) {
      const made = await emulator().cloudflare.addRecord(zoneId, {
        name: `_acme-challenge.h${i}.example.com`,
        type: "TXT",
        content: quoteTxt(`token-${i}`),
        ttl: 120,
      });
      fillers.push(String(made.id));
    }
    await emulator().cloudflare.addRecord(zoneId, {
      name,
      type: "TXT",
      content: quoteTxt("v=spf1 include:_spf.google.com ~all"),
      ttl: 3600,
    });
    for (let i = 0; i < 5; i++)
      await emulator().cloudflare.addRecord(zoneId, {
        name: `www${i}.example.com`,
        type: "A",
        content: "192.0.2.1",
        ttl: 300,
      });
    expect((await all()).length).toBeLessThan(200); // one Domain: the zone is read whole (maxItems 200)

    // The read's second page is slow; while it is on its way, the ACME client deletes its record.
    emulator().faults.set([
      { endpoints: LIST, times: 1 },
      { endpoints: LIST, latencyMs: 500, times: 1 },
    ]);
    const before = emulator().requests.count(LIST);
    const deleting = (async () => {
      while (emulator().requests.count(LIST) === before) await new Promise((r) => setTimeout(r, 5));
      await emulator().cloudflare.removeRecord(zoneId, fillers[0]);
    })();

    const run = await runProgram(
      () => {
        new Domain("mail", {
          name,
          cloudflare: { zoneId },
          verification: { timeoutSeconds: 30, pollIntervalSeconds: 1 },
        });
        return {};
      },
      { mode: "live", emulator: emulator(), timeoutMs: 60_000 },
    );
    await deleting;
    const spf = (await all())
      .filter((record) => record.name === name && record.type === "TXT")
      .map((record) => unquoteTxt(String(record.content)))
      .filter((content) => content.startsWith("v=spf1"));
    // Expected: the default policy refuses the user's SPF record (as it does when nothing moves),
    // and the zone keeps one SPF record, not two (a permerror at every receiver).
    expect(spf).toEqual(["v=spf1 include:_spf.google.com ~all"]);
    expect(run.errors.map((error) => error.message).join("\n")).toContain(
      `the zone already has an SPF record at ${name} that this stack did not make`,
    );
    await destroyRun(run, { mode: "live", emulator: emulator() });
  });
});
