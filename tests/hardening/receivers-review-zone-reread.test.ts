import { PAGED_ZONE_ID, pagedZone } from "../support/paged-zone";

/**
 * Adversarial review of the write-time re-read (zone-reads.ts `confirmedAt`): what it costs in
 * Cloudflare requests. docs/performance.md says one or two requests a new domain, one or two a name
 * at the apex of a zone of a page or more.
 */

const ZONE = PAGED_ZONE_ID;
const NAMES = (domain: string) => [
  domain,
  `psrp.${domain}`,
  `_dmarc.${domain}`,
  `postal-abc._domainkey.${domain}`,
];

describe("confirmedAt's cost", () => {
  it("a new domain at the apex of a large zone: one read per name written, each name once (docs/performance.md)", async () => {
    const others = Array.from({ length: 5_000 }, (_, i) => ({
      name: `host-${i}.example.com`,
      type: "A",
      content: "192.0.2.1",
    }));
    const { reads, requests } = pagedZone(others);
    reads.register(ZONE, "example.com");
    for (const name of NAMES("example.com")) await reads.recordsAt(ZONE, name);
    const before = requests();
    // The domain's records are written together (the service names them at once).
    // The apex's SPF and MX records share their name's read.
    await Promise.all([...NAMES("example.com"), "example.com"].map((name) => reads.confirmedAt(ZONE, name)));
    // No record at any of them: one empty page each, and no suffix read abandoned first.
    expect(requests() - before).toBe(NAMES("example.com").length);
  });

  it("held: a new subdomain in a large zone: one request", async () => {
    const others = Array.from({ length: 5_000 }, (_, i) => ({
      name: `host-${i}.example.com`,
      type: "A",
      content: "192.0.2.1",
    }));
    const { reads, requests } = pagedZone(others);
    reads.register(ZONE, "mail.example.com");
    for (const name of NAMES("mail.example.com")) await reads.recordsAt(ZONE, name);
    const before = requests();
    await Promise.all(NAMES("mail.example.com").map((name) => reads.confirmedAt(ZONE, name)));
    expect(requests() - before).toBeLessThanOrEqual(2);
  });
});
