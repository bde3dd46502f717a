import { sendingHost, serviceRecords } from "../../emulator/dns/service-records";
import { defaultMailDnsConfig } from "../../emulator/config";
import { CachedSpfResolver, evaluateSpf } from "../../provider/dns";
import { useEmulator } from "../support/emulator";
import { resolverAt, spfResolverAt } from "../support/dns-client";

/**
 * The installation's own DNS, as Postal's DNS guide has installations publish it: the SPF include,
 * the MX hosts' and the return-path host's addresses, the return path's MX and SPF, and the
 * installation's DKIM key; answered by the emulator's DNS, never in a zone read.
 */

const emulator = useEmulator();
const POSTAL_SPF = "v=spf1 a mx include:spf.postal.example.com ~all";

const resolver = () => resolverAt(emulator().dns.address);
const spfResolver = () => spfResolverAt(emulator().dns.address);

describe("the installation's records", () => {
  it("gives the MX hosts and the return-path host addresses inside the SPF include's networks", async () => {
    expect(await resolver().resolve4("mx1.postal.example.com")).toEqual(["192.0.2.10"]);
    expect(await resolver().resolve6("mx1.postal.example.com")).toEqual(["2001:db8::10"]);
    expect(await resolver().resolve4("mx2.postal.example.com")).toEqual(["192.0.2.11"]);
    expect(await resolver().resolve4("rp.postal.example.com")).toEqual(["192.0.2.1"]);
    expect(await resolver().resolve6("rp.postal.example.com")).toEqual(["2001:db8::1"]);
    expect(await resolver().resolveTxt("spf.postal.example.com")).toEqual([
      ["v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 ~all"],
    ]);
  });

  it("gives the return path the MX and the SPF record Postal's guide gives it", async () => {
    const mx = await resolver().resolveMx("rp.postal.example.com");
    expect(mx.sort((a, b) => a.exchange.localeCompare(b.exchange))).toEqual([
      { exchange: "mx1.postal.example.com", priority: 10 },
      { exchange: "mx2.postal.example.com", priority: 10 },
    ]);
    expect(await resolver().resolveTxt("rp.postal.example.com")).toEqual([[POSTAL_SPF]]);
  });

  it("publishes the installation's DKIM key at postal._domainkey.<return path>", async () => {
    const [record] = await resolver().resolveTxt("postal._domainkey.rp.postal.example.com");
    expect(record.join("")).toBe(`v=DKIM1; t=s; h=sha256; p=${emulator().state.signingKey!.publicKey};`);
  });

  it("sends from the first MX host, at its address", () => {
    expect(sendingHost(defaultMailDnsConfig())).toEqual({
      helo: "mx1.postal.example.com",
      clientIp: "192.0.2.10",
    });
    expect(sendingHost({ returnPathDomain: "rp.example.net.", mxRecords: [] })).toEqual({
      helo: "rp.example.net",
      clientIp: "192.0.2.1",
    });
  });

  it("is never in the zone's records, and each name gives way to a record of the zone there", async () => {
    const names = new Set(serviceRecords(defaultMailDnsConfig(), "key").map((record) => record.name));
    expect(
      emulator()
        .cloudflare.records("example.com")
        .filter((record) => names.has(record.name)),
    ).toEqual([]);
    const mine = await emulator().cloudflare.addRecord("example.com", {
      name: "mx2.postal.example.com",
      type: "TXT",
      content: '"mine"',
    });
    try {
      await expect(resolver().resolve4("mx2.postal.example.com")).rejects.toMatchObject({ code: "ENODATA" });
      expect(await resolver().resolve4("mx1.postal.example.com")).toEqual(["192.0.2.10"]);
    } finally {
      await emulator().cloudflare.removeRecord("example.com", mine.id);
    }
  });
});

describe("Postal's recommended SPF record, evaluated over the emulator's DNS", () => {
  it("makes no void lookup for the MX hosts: only the domain's own `a`, when it has no address", async () => {
    const domain = "spf-voids.example.com";
    for (const exchange of ["mx1.postal.example.com", "mx2.postal.example.com"])
      await emulator().cloudflare.addRecord("example.com", {
        name: domain,
        type: "MX",
        content: exchange,
        priority: 10,
      });
    for (const family of ["ipv4", "ipv6"] as const) {
      const evaluation = await evaluateSpf(POSTAL_SPF, new CachedSpfResolver(spfResolver()), {
        domain,
        family,
      });
      expect({ family, voids: evaluation.voids, error: evaluation.error }).toEqual({
        family,
        voids: ["a"],
        error: undefined,
      });
    }
  });

  it("makes none at the return-path host, which has an address and MX hosts with addresses", async () => {
    const domain = "rp.postal.example.com";
    const evaluation = await evaluateSpf(POSTAL_SPF, new CachedSpfResolver(spfResolver()), {
      domain,
      family: "ipv4",
    });
    expect(evaluation.voids).toEqual([]);
    expect(evaluation.lookups).toBe(3); // a, mx (its hosts count toward the MX limit only) and include
  });
});
