import type { DnsRecordsApi } from "../../provider/cloudflare/dns-records";
import {
  forgetRecentZoneReads,
  RECENT_ZONE_READ_MAX_AGE_MS,
  recentZoneRecords,
} from "../../provider/cloudflare/recent-zone-reads";

/** Shared whole-zone reads for diagnoses: when one is reused, and when the zone is read again. */
describe("recentZoneRecords", () => {
  const account = { baseUrl: "http://127.0.0.1:1/client/v4", apiToken: "token-a" };
  let reads: number;
  let fail: boolean;
  const api = {
    listZone: async () => {
      reads++;
      if (fail) throw new Error("503");
      return [];
    },
  } as unknown as DnsRecordsApi;
  beforeEach(() => {
    forgetRecentZoneReads();
    reads = 0;
    fail = false;
  });

  it("shares a read with callers whose wait began before it, for a minute", async () => {
    let time = 1_000;
    const now = () => time;
    await recentZoneRecords(api, account, "zone", 500, now);
    await recentZoneRecords(api, account, "zone", 900, now); // began before the read: shared
    time += RECENT_ZONE_READ_MAX_AGE_MS - 1;
    await recentZoneRecords(api, account, "zone", 0, now);
    expect(reads).toBe(1);
    time += 1; // a minute old: read again
    await recentZoneRecords(api, account, "zone", 0, now);
    expect(reads).toBe(2);
  });

  it("reads again for a wait that began after the read (it could miss that wait's records)", async () => {
    await recentZoneRecords(api, account, "zone", 0, () => 1_000);
    await recentZoneRecords(api, account, "zone", 1_001, () => 1_002);
    expect(reads).toBe(2);
  });

  it("keeps zones and accounts apart, and never shares a failed read", async () => {
    const now = () => 1_000;
    await recentZoneRecords(api, account, "zone", 0, now);
    await recentZoneRecords(api, account, "other", 0, now);
    await recentZoneRecords(api, { ...account, apiToken: "token-b" }, "zone", 0, now);
    expect(reads).toBe(3);
    forgetRecentZoneReads();
    fail = true;
    await expect(recentZoneRecords(api, account, "zone", 0, now)).rejects.toThrow("503");
    fail = false;
    await recentZoneRecords(api, account, "zone", 0, now);
    expect(reads).toBe(5);
  });
});
