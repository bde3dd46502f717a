import type * as cloudflare from "@pulumi/cloudflare";
import { ZoneReads } from "../../provider/resources/publishing/zone-reads";
import { PAGED_ZONE_ID, pagedZone } from "../support/paged-zone";

/**
 * zone-reads.ts against a zone paged as getDnsRecords pages it (100 a page until an empty page or
 * maxItems): what a domain at its zone's apex costs (found by a review: the guide promised 4 for
 * any domain), and an invoke answered with no `results`.
 */

const ZONE = PAGED_ZONE_ID;
const zone = pagedZone;

describe("one domain in a zone of any size", () => {
  it("costs the cut whole read, the cut suffix read, then each name alone when the domain is the zone's apex", async () => {
    const others = Array.from({ length: 20_000 }, (_, i) => ({
      name: `host-${i}.example.com`,
      type: "A",
      content: "192.0.2.1",
    }));
    const { reads, requests } = zone([
      ...others,
      { name: "example.com", type: "TXT", content: '"v=spf1 include:_spf.google.com ~all"' },
    ]);
    reads.register(ZONE, "example.com");
    // The names a preview asks (SPF/MX at the apex, return path, DMARC), then DKIM at `up`.
    for (const name of [
      "example.com",
      "psrp.example.com",
      "_dmarc.example.com",
      "postal-abc._domainkey.example.com",
    ])
      await reads.recordsAt(ZONE, name);
    // The whole read cut at 200 (2), the apex's suffix read (the whole zone again) cut at 100 (1),
    // then each name alone: its page and the empty one (2), or just the empty one (1). The apex's
    // suffix is the zone's: no read covers the apex's names in fewer requests.
    expect(requests()).toBe(2 + 1 + 2 + 1 + 1 + 1);
  });
});

describe("an invoke answered with no `results` at all", () => {
  // Pulumi's engine answers an invoke through a provider whose configuration is not known yet (a
  // `cloudflare.Provider` whose token comes from a resource this preview has still to create) with an
  // empty property map (pkg/resource/plugin/provider_plugin.go, Invoke: "If the provider is not fully
  // configured, return an empty property map"): that is no read of the zone, not an empty zone.
  it("is not taken for a zone with nothing at the name (the preview would pass every check)", async () => {
    const reads = new ZoneReads(undefined, async () => ({}) as unknown as cloudflare.GetDnsRecordsResult);
    reads.register(ZONE, "mail.example.com");
    let answer: unknown;
    try {
      answer = await reads.recordsAt(ZONE, "mail.example.com");
    } catch (error) {
      answer = error;
    }
    // Expected: an error (or an "unknown" the preflight reports as not checked), not [].
    expect(answer).not.toEqual([]);
  });
});
