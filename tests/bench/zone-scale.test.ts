import { startEmulator } from "../../emulator";
import {
  CommandCounts,
  idealZoneReads,
  measureZoneScale,
  ZONE_SCALE_PARALLEL,
  ZoneScaleResult,
} from "../../bench/zone-scale";

/**
 * Many domains in one zone (bench/zone-scale.ts), at sizes a test can afford: what each command
 * sends, counted from the emulator's request log, never timed. `npm run bench` runs the same
 * scenario at N = 1 to 1,000.
 */

async function scenario(domains: number, otherRecords = 0): Promise<ZoneScaleResult> {
  const emulator = await startEmulator({ dns: { dkimKeyBits: 1024 } });
  try {
    return await measureZoneScale(emulator, { domains, otherRecords });
  } finally {
    await emulator.stop();
  }
}

const command = (result: ZoneScaleResult, name: string): CommandCounts =>
  result.commands.find((counts) => counts.command === name)!;

/**
 * Room for a scenario: about 10 s alone on 2 cores, over 30 s (jest's limit here) among the
 * suite's other files, so ten times what it takes alone.
 */
const SCENARIO_MS = 150_000;

describe("bench: 20 domains in one zone", () => {
  let result: ZoneScaleResult;
  beforeAll(async () => {
    result = await scenario(20);
  }, SCENARIO_MS);

  it("runs every command without an error", () => {
    expect(result.errors).toEqual([]);
  });

  it("reads the zone once per program run, at the ideal for its size", () => {
    // Before the update: nothing in the zone (one empty page); after: 100 records, 2 pages and the empty one.
    expect(command(result, "preview").cloudflareReads).toEqual([1]);
    // The records' provider reads the zone (whole, one page) for its creates' checks: a read of the
    // last few seconds serves them all, where the program once read each new domain's names again.
    const up = command(result, "up");
    expect(up.cloudflareReads[0]).toBe(1);
    expect(up.cloudflareReads[1]).toBeLessThanOrEqual(3);
    expect(command(result, "up, no change")).toMatchObject({
      cloudflareReads: [2, 2],
      idealCloudflareReads: idealZoneReads(100, 20),
      cloudflareOther: 0,
    });
  });

  it("lists the email service's domains and routes only for reads, never to create", () => {
    const lists = (name: string) => command(result, name).serviceLists;
    // A create is one request: the service refuses a name it holds, so no list proves a name free,
    // and with no answer lost none looks for what a create made. Not a matter of timing: no
    // gathering window or busy machine changes it.
    expect(lists("up")).toBe(0);
    expect(command(result, "up").serviceListed).toBe(0);
    // Reads share one list per kind, and each verification's check is applied to it: one each,
    // where a list of domains after every check took 13 when reads came one at a time.
    expect(lists("refresh")).toBe(2);
    expect(lists("refresh, one at a time")).toBe(2);
    expect(command(result, "refresh").serviceListed).toBe(20 + 40);
    for (const name of ["preview", "up, no change", "destroy"]) expect(lists(name)).toBe(0);
  });

  it("spends of Cloudflare's account-wide limit about 5N/P for a fresh up and a destroy, and a read or two for a refresh", () => {
    // The records are written and deleted in batches: the engine runs `--parallel` (P = 8 here)
    // operations at once, so a batch holds at most P records, and 5N records take at least 5N/P
    // batches (13 here; 13 or 14 on a quiet machine). Gathering is by time (50 ms quiet), so a
    // machine busy enough to space the creates out splits batches: the bound allows batches of two
    // records on average, still half the Cloudflare provider's one request a record (5N).
    const batches = Math.ceil((5 * 20) / ZONE_SCALE_PARALLEL);
    for (const name of ["up", "destroy"]) {
      const counts = command(result, name);
      expect(counts.cloudflareOther).toBeGreaterThanOrEqual(batches);
      expect(counts.cloudflareOther).toBeLessThanOrEqual((5 * 20) / 2);
      expect(counts.cloudflareTotal - counts.cloudflareOther).toBeLessThanOrEqual(4); // the zone's reads
    }
    expect(command(result, "up, no change").cloudflareTotal).toBe(4);
    // A refresh's reads are served by one read of the zone (100 records: one page) for all of them.
    expect(command(result, "refresh").cloudflareTotal).toBeLessThanOrEqual(2);
    // The emulator answers a command within seconds: all of it falls in one 5-minute window.
    for (const counts of result.commands)
      expect(counts.cloudflareMostIn5Minutes).toBe(counts.cloudflareTotal);
  });

  it("writes records only in batches, and reads none by id", () => {
    for (const name of ["up", "destroy", "refresh"])
      expect(command(result, name).cloudflareReadsById).toBe(0);
    expect(command(result, "refresh").cloudflareOther).toBe(0);
  });
});

describe("bench: one domain in a zone of 500 records that are no stack's", () => {
  it(
    "costs at most 4 reads per program run, whatever the zone's size",
    async () => {
      // Past the whole-zone budget of one domain (200 records); npm run bench takes 20,000.
      const result = await scenario(1, 500);
      expect(result.errors).toEqual([]);
      for (const name of ["preview", "up", "up, no change"]) {
        for (const reads of command(result, name).cloudflareReads) expect(reads).toBeLessThanOrEqual(4);
      }
      // The whole zone (505 records) would take 7 requests; the domain alone takes 2.
      expect(command(result, "up, no change").idealCloudflareReads).toBe(2);
    },
    SCENARIO_MS,
  );
});
