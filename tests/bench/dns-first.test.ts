import { DNS_FIRST_TARGET, formatDnsFirst, measureDnsFirst } from "../../bench/dns-first";

/** The bench's DNS-first rows: counts from the real wait on a fake clock, and how they are shown. */
describe("bench: service checks per verified domain", () => {
  it("counts both modes in one run, DNS-first within the aim", async () => {
    const figures = await measureDnsFirst();
    expect(figures.map((f) => f.appearsAfterSeconds)).toEqual([0, 30, 120]);
    for (const f of figures) {
      expect(f.verified).toBe(true);
      expect(f.dnsFirst).toBeLessThanOrEqual(DNS_FIRST_TARGET.serviceChecksPerDomain);
      expect(f.serviceOnly).toBe(f.polls); // one check per poll at 5 s: 1, 7, 25
    }
    expect(figures.map((f) => f.serviceOnly)).toEqual([1, 7, 25]);
  });

  it("shows the aim as the floor, the ratio, and misses a row over it", () => {
    const lines = formatDnsFirst([
      { appearsAfterSeconds: 30, polls: 7, serviceOnly: 7, dnsFirst: 1, verified: true },
      { appearsAfterSeconds: 120, polls: 25, serviceOnly: 25, dnsFirst: 3, verified: true },
    ]).join("\n");
    expect(lines).toContain("Aim (the floor compared against): DNS-first ≤ 2 per domain.");
    expect(lines).toMatch(/^30 s +7 +7 +1 +7\.0× +ok$/m);
    expect(lines).toMatch(/^120 s +25 +25 +3 +8\.3× +MISSED$/m);
  });
});
