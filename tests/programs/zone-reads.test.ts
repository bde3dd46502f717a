import { coveringDomain } from "../../provider/resources/publishing/zone-read-results";
import { HeldRecord, PAGED_ZONE_ID, pagedZone } from "../support/paged-zone";

/**
 * How a program run's questions about a zone become reads (zone-reads.ts), against a zone held
 * here and paged as `getDnsRecords` pages it (tests/support/paged-zone.ts), counting the requests.
 */

const ZONE = PAGED_ZONE_ID;
type Held = HeldRecord;
const zone = pagedZone;

const own = (domain: string): Held[] => [
  { name: domain, type: "TXT", content: '"v=spf1 include:spf.postal.example.com ~all"' },
  { name: domain, type: "MX", content: "mx.postal.example.com" },
  { name: `psrp.${domain}`, type: "CNAME", content: "rp.postal.example.com" },
  { name: `postal-abc123._domainkey.${domain}`, type: "TXT", content: '"v=DKIM1; p=AB"' },
];
const others = (count: number): Held[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `host-${i}.example.com`,
    type: "A",
    content: "192.0.2.1",
  }));

describe("ZoneReads", () => {
  it("reads a zone that holds the run's domains once, whole, and answers every later name from it", async () => {
    const domains = Array.from({ length: 30 }, (_, i) => `mail-${i}.example.com`);
    const { reads, calls, requests } = zone([...domains.flatMap(own), ...others(40)]);
    for (const domain of domains) reads.register(ZONE, domain);

    const apex = await Promise.all(domains.map((domain) => reads.recordsAt(ZONE, domain)));
    expect(apex.map((records) => records.map((r) => r.type).sort())).toEqual(
      domains.map(() => ["MX", "TXT"]),
    );
    // Names learned later (DKIM) and asked again: no other read.
    expect(await reads.recordsAt(ZONE, "postal-abc123._domainkey.mail-7.example.com")).toEqual([
      expect.objectContaining({ type: "TXT", content: '"v=DKIM1; p=AB"', proxied: false }),
    ]);
    expect(await reads.recordsAt(ZONE, "_dmarc.mail-7.example.com")).toEqual([]);
    expect(calls).toEqual([{ zoneId: ZONE, maxItems: 30 * 200 }]);
    // 160 records: two pages and the empty one.
    expect(requests()).toBe(3);
  });

  it("reads each domain alone by name suffix when the zone is larger than reading them whole would pay for", async () => {
    const { reads, calls, requests } = zone([
      ...others(500),
      ...own("mail.example.com"),
      ...own("news.example.com"),
    ]);
    reads.register(ZONE, "mail.example.com");
    reads.register(ZONE, "news.example.com");

    expect(await reads.recordsAt(ZONE, "psrp.mail.example.com")).toHaveLength(1);
    expect(await reads.recordsAt(ZONE, "MAIL.example.com.")).toHaveLength(2);
    expect(await reads.recordsAt(ZONE, "postal-abc123._domainkey.news.example.com")).toHaveLength(1);
    expect(calls).toEqual([
      { zoneId: ZONE, maxItems: 400 },
      { zoneId: ZONE, name: { endswith: "mail.example.com" }, maxItems: 100 },
      { zoneId: ZONE, name: { endswith: "news.example.com" }, maxItems: 100 },
    ]);
    // The whole read stops at its 400 records (4 pages), then two pages per domain.
    expect(requests()).toBe(4 + 2 + 2);
  });

  it("costs one domain at most 4 requests in a zone of any size", async () => {
    const { reads, requests } = zone([...others(20_000), ...own("mail.example.com")]);
    reads.register(ZONE, "mail.example.com");
    for (const name of ["mail.example.com", "psrp.mail.example.com", "_dmarc.mail.example.com"])
      await reads.recordsAt(ZONE, name);
    expect(requests()).toBe(4);
  });

  it("reads by exact name under a domain with a page or more of records (a zone's apex)", async () => {
    const apexZone = [...others(300), ...own("example.com")];
    const { reads, calls } = zone(apexZone);
    reads.register(ZONE, "example.com");

    expect(await reads.recordsAt(ZONE, "example.com")).toHaveLength(2);
    expect(await reads.recordsAt(ZONE, "psrp.example.com")).toHaveLength(1);
    expect(await reads.recordsAt(ZONE, "example.com")).toHaveLength(2);
    expect(calls.slice(2)).toEqual([
      { zoneId: ZONE, name: { exact: "example.com" }, maxItems: 1000 },
      { zoneId: ZONE, name: { exact: "psrp.example.com" }, maxItems: 1000 },
    ]);
  });

  it("fails, naming the zone and the name, when a read by name may have been cut at its limit", async () => {
    const crowded = Array.from({ length: 1000 }, (_, i) => ({
      name: "example.com",
      type: "TXT",
      content: `"note ${i}"`,
    }));
    const { reads } = zone([...others(300), ...crowded]);
    reads.register(ZONE, "example.com");
    await expect(reads.recordsAt(ZONE, "example.com")).rejects.toThrow(
      `zone ${ZONE} holds 1000 or more records named example.com: a read of them may be incomplete`,
    );
  });

  it("answers a domain registered after the zone was read whole from that read", async () => {
    const { reads, calls } = zone([...own("mail.example.com"), ...own("late.example.com")]);
    reads.register(ZONE, "mail.example.com");
    await reads.recordsAt(ZONE, "mail.example.com");
    reads.register(ZONE, "late.example.com");
    expect(await reads.recordsAt(ZONE, "psrp.late.example.com")).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it("reads each zone apart", async () => {
    const { reads, calls } = zone(own("mail.example.com"));
    reads.register(ZONE, "mail.example.com");
    reads.register("b".repeat(32), "mail.example.org");
    await Promise.all([
      reads.recordsAt(ZONE, "mail.example.com"),
      reads.recordsAt("b".repeat(32), "mail.example.org"),
    ]);
    expect(calls.map((call) => call.zoneId)).toEqual([ZONE, "b".repeat(32)]);
  });
});

describe("coveringDomain", () => {
  const domains = new Set(["example.com", "mail.example.com"]);
  it.each([
    ["mail.example.com", "mail.example.com"],
    ["x._domainkey.mail.example.com", "mail.example.com"],
    ["psrp.example.com", "example.com"],
    ["xmail.example.com", "example.com"],
    ["example.org", undefined],
  ])("%s is under %s", (name, domain) => expect(coveringDomain(domains, name)).toBe(domain));
});
