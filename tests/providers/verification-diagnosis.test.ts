import { createVerificationProvider } from "../../provider/dynamic/verification-provider";
import { configureRequest, failure, verificationInputs } from "../support/providers";
import { forgetConfig } from "../../provider/dynamic/configured";
import { setClientDefaults } from "../../provider/dynamic/connection";
import { forgetRecentZoneReads } from "../../provider/cloudflare/recent-zone-reads";
import type { DnsRecord } from "../../provider/client";
import { publishRecords } from "../support/cloudflare";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { InstantClock, instantClock } from "../support/fake-clock";

/**
 * A verification given its domain's records (as a `Domain` gives them) explains a timeout check by
 * check: what each of the zone's nameservers serves and what the Cloudflare zone holds. Against the
 * emulator with two nameservers, which the settings name, so nothing but 127.0.0.1 is asked; the
 * wait runs on an instant clock.
 */
describe("verificationProvider's diagnosis", () => {
  let clock: InstantClock;
  beforeEach(() => (clock = instantClock()));
  const provider = createVerificationProvider({ now: () => clock.now(), sleep: (ms) => clock.sleep(ms) });
  const emulator = useEmulator({ nameservers: 2 });

  beforeEach(async () => {
    forgetConfig();
    forgetRecentZoneReads();
    setClientDefaults({ retry: { baseDelayMs: 5, maxDelayMs: 20 } });
    const e = emulator();
    await provider.configure(
      configureRequest({
        "emailDelivery:baseUrl": e.emailApi.url,
        "emailDelivery:apiKey": e.emailApi.apiKey,
        "emailDelivery:dnsNameservers": e.dns.nameservers.map((server) => server.address).join(","),
        "cloudflare:baseUrl": e.cloudflare.url,
        "cloudflare:apiToken": e.cloudflare.apiToken,
      }),
    );
    e.requests.clear();
  });
  afterEach(() => emulator().dns.nameservers.forEach((server) => server.release()));

  jest.spyOn(console, "log").mockImplementation(() => undefined);

  const newDomain = async () => {
    const created = await clientFor(emulator()).createDomain(uniqueDomain("diagnose"));
    return { id: created.domain.id, name: created.domain.name, records: created.dnsRecords! };
  };
  const without = (records: DnsRecord[], purpose: string) => records.filter((r) => r.purpose !== purpose);
  const timedOut = (domain: { id: number; records: DnsRecord[] }) =>
    failure(
      provider.create(
        verificationInputs(domain.id, {
          timeoutSeconds: 20,
          pollIntervalSeconds: 5,
          dnsRecords: domain.records,
          zoneId: emulator().cloudflare.zones[0].id,
        }),
      ),
    );

  it("says a record is not published: nothing in the zone, NXDOMAIN at both nameservers", async () => {
    const domain = await newDomain();
    await publishRecords(emulator(), without(domain.records, "dkim"));
    const error = await timedOut(domain);
    // DNS never served the DKIM record, so the service was asked at most every quarter of the wait
    // (5 s), not at each of the 5 polls, the last at the deadline: its statuses are in the failure.
    expect(emulator().requests.count("domains/check")).toBeLessThan(5);
    const dkim = domain.records.find((r) => r.purpose === "dkim")!;
    expect(error.message).toContain("failing: dkim):");
    expect(error.message).toContain("What DNS serves, check by check:");
    expect(error.message).toMatch(/DKIM: not published/i);
    expect(error.message).toContain(dkim.name);
    const [first, second] = emulator().dns.nameservers;
    expect(error.message).toContain(first.address);
    expect(error.message).toContain(second.address);
    expect(error.message).toMatch(/zone +nothing at this name/);
    // Every line of the failure fits an 80-column terminal.
    // The section fits an 80-column terminal (the service's own texts above it are as it wrote them).
    const section = error.message
      .split("What DNS serves, check by check:\n")[1]
      .split("\nFix the records")[0];
    for (const line of section.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
  });

  it("says an old DKIM key is published, as the zone holds it", async () => {
    const domain = await newDomain();
    const dkim = domain.records.find((r) => r.purpose === "dkim")!;
    await publishRecords(emulator(), [
      ...without(domain.records, "dkim"),
      { ...dkim, content: "v=DKIM1; t=s; h=sha256; p=OLDKEY;" },
    ]);
    const error = await timedOut(domain);
    expect(error.message).toMatch(/DKIM: .*another value/i);
    expect(error.message).toContain("OLDKEY");
  });

  it("says a record is still propagating when one nameserver lags", async () => {
    const domain = await newDomain();
    // The service's check asks the first nameserver: it is the one behind, so the check fails
    // while the second already serves every record.
    const [lagging] = emulator().dns.nameservers;
    lagging.hold();
    await publishRecords(emulator(), domain.records);
    const error = await timedOut(domain);
    expect(error.message).toContain("failing: spf, dkim, mx, returnPath):");
    expect(error.message).toMatch(/DKIM: still propagating/i);
    expect(error.message).toContain("1 of 2 nameservers");
  });

  it("asks the service every 2 minutes of a 10-minute wait while DNS lacks a record", async () => {
    const domain = await newDomain();
    await publishRecords(emulator(), without(domain.records, "dkim"));
    await failure(
      provider.create(
        verificationInputs(domain.id, {
          timeoutSeconds: 600,
          pollIntervalSeconds: 5,
          dnsRecords: domain.records,
          zoneId: emulator().cloudflare.zones[0].id,
        }),
      ),
    );
    // 120 polls; the service at 120, 240, 360, 480 s and at the deadline.
    expect(emulator().requests.count("domains/check")).toBe(5);
  });

  it("reads the zone once for the failures' diagnoses, not at every poll, nor per domain", async () => {
    // Two verifications failing together in one zone share one read of it: 1,000 failures in a
    // zone cost a read or two (5,000 records a request), not one per domain, against the
    // account's 1,200 requests per 5 minutes.
    const domains = [await newDomain(), await newDomain()];
    for (const domain of domains) await publishRecords(emulator(), without(domain.records, "dkim"));
    const errors = await Promise.all(domains.map((domain) => timedOut(domain)));
    for (const error of errors) expect(error.message).toMatch(/zone +nothing at this name/);
    const reads = emulator()
      .requests.all()
      .filter((request) => request.service === "cloudflare");
    expect(reads.map((request) => request.endpoint)).toEqual(["cloudflare:dns_records.list"]);
  });

  it("asks the service as soon as DNS serves every record, and once only", async () => {
    const domain = await newDomain();
    await publishRecords(emulator(), domain.records);
    const { outs } = await provider.create(
      verificationInputs(domain.id, {
        dnsRecords: domain.records,
        zoneId: emulator().cloudflare.zones[0].id,
      }),
    );
    expect(outs).toMatchObject({ verified: true, dkimStatus: "OK" });
    expect(emulator().requests.count("domains/check")).toBe(1);
    // The zone is read only to explain a failure.
    expect(emulator().requests.count("cloudflare:dns_records.list")).toBe(0);
  });

  it("without records, fails as before: the service's table only", async () => {
    const domain = await newDomain();
    await publishRecords(emulator(), without(domain.records, "dkim"));
    const error = await failure(
      provider.create(verificationInputs(domain.id, { timeoutSeconds: 20, pollIntervalSeconds: 5 })),
    );
    expect(error.message).toContain("failing: dkim):");
    expect(error.message).not.toContain("What DNS serves");
  });
});
