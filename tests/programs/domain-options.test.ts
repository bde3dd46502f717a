import { Domain, Route } from "../../provider";
import { publishRecords } from "../support/cloudflare";
import { uniqueDomain, useEmulator } from "../support/emulator";
import { CLAIMED_RECORD_TYPE, runProgram } from "../../testing";

/** The Domain component's options, run live against the emulator (and one preview). */
describe("Domain options", () => {
  const emulator = useEmulator();
  const zoneId = () => emulator().cloudflare.zones[0].id;
  const quick = { timeoutSeconds: 20, pollIntervalSeconds: 1 };
  const storedFor = (name: string) =>
    emulator().state.cloudflare.records.filter(
      (record) => record.name === name || record.name.endsWith(`.${name}`),
    );

  it("adopt with nothing to take over: creates the domain, publishes its records, verifies", async () => {
    const name = uniqueDomain("adopt-new");
    const run = await runProgram(
      () => {
        const domain = new Domain("fresh", {
          name,
          cloudflare: { zoneId: zoneId() },
          adopt: true,
          verification: quick,
        });
        return { verified: domain.verified, records: domain.dnsRecords.apply((records) => records.length) };
      },
      { mode: "live", emulator: emulator() },
    );
    expect(run.errors).toEqual([]);
    expect(run.outputs).toEqual({ verified: true, records: 5 });
    expect(
      run
        .ofType(CLAIMED_RECORD_TYPE)
        .map((r) => r.name)
        .sort(),
    ).toEqual(["fresh-dkim", "fresh-mx-0", "fresh-mx-1", "fresh-return-path", "fresh-spf"]);
    expect(storedFor(name)).toHaveLength(5);
  });

  it("adopt of an existing domain: takes it over and publishes nothing", async () => {
    const name = uniqueDomain("adopt-old");
    const existing = await emulator().emailApi.addDomain(name);
    const run = await runProgram(
      () => {
        const domain = new Domain("taken", {
          name,
          cloudflare: { zoneId: zoneId() },
          adopt: true,
          verification: false,
        });
        return { domainId: domain.domainId, dnsRecords: domain.dnsRecords };
      },
      { mode: "live", emulator: emulator() },
    );
    expect(run.errors).toEqual([]);
    expect(run.outputs).toEqual({ domainId: existing.id, dnsRecords: [] });
    expect(run.ofType(CLAIMED_RECORD_TYPE)).toEqual([]);
    expect(emulator().state.domains.filter((d) => d.name === name)).toHaveLength(1);
  });

  it("without cloudflare: records are only outputs, and verification passes once they are published elsewhere", async () => {
    const name = uniqueDomain("elsewhere");
    const run = await runProgram(
      () => {
        const domain = new Domain("elsewhere", { name, verification: quick });
        // Someone else's DNS: published by hand once the domain exists, while the wait runs.
        domain.dnsRecords.apply((records) =>
          records.length ? publishRecords(emulator(), records) : undefined,
        );
        return { verified: domain.verified, dkimStatus: domain.dkimStatus };
      },
      { mode: "live", emulator: emulator() },
    );
    expect(run.errors).toEqual([]);
    expect(run.outputs).toEqual({ verified: true, dkimStatus: "OK" });
    expect(run.ofType(CLAIMED_RECORD_TYPE)).toEqual([]);
  });

  it("verification: false: no waiting; routes are created at once", async () => {
    const name = uniqueDomain("nowait");
    emulator().requests.clear();
    const run = await runProgram(
      () => {
        const domain = new Domain("nowait", { name, cloudflare: { zoneId: zoneId() }, verification: false });
        const route = new Route("nowait-inbox", { name: "inbox", domainId: domain.domainId, endpointId: 1 });
        return { verified: domain.verified, spfStatus: domain.spfStatus, routeDomain: route.domainId };
      },
      { mode: "live", emulator: emulator() },
    );
    expect(run.errors).toEqual([]);
    expect(run.outputs).toEqual({
      verified: false,
      spfStatus: null,
      routeDomain: emulator().state.domains.find((d) => d.name === name)!.id,
    });
    expect(
      emulator()
        .requests.all()
        .some((entry) => entry.endpoint === "domains/check"),
    ).toBe(false);
    expect(storedFor(name)).toHaveLength(5);
  });

  it('keeps only the ownership mark for comment: "" (a later run must still know its records)', async () => {
    const run = await runProgram(
      () => {
        new Domain("quiet", { name: "quiet.example.com", cloudflare: { zoneId: zoneId(), comment: "" } });
        return {};
      },
      { mode: "preview", emulator: emulator() },
    );
    for (const record of run.ofType(CLAIMED_RECORD_TYPE))
      expect(record.inputs.comment).toBe("pulumi email-delivery/test");
    expect(run.ofType(CLAIMED_RECORD_TYPE)).toHaveLength(3);
  });

  it("passes verification.maxPollIntervalSeconds to the verification, and refuses a bad one at preview", async () => {
    const run = await runProgram(
      () => {
        new Domain("cap", {
          name: "cap.example.com",
          cloudflare: { zoneId: zoneId() },
          verification: { pollIntervalSeconds: 1, maxPollIntervalSeconds: 2 },
        });
        return {};
      },
      { mode: "preview", emulator: emulator() },
    );
    expect(run.errors).toEqual([]);
    expect(run.get("email-delivery:DomainVerification", "cap-verification").inputs).toMatchObject({
      pollIntervalSeconds: 1,
      maxPollIntervalSeconds: 2,
    });

    const refused = await runProgram(
      () => {
        new Domain("hasty", { name: "hasty.example.com", verification: { maxPollIntervalSeconds: 0.5 } });
        return {};
      },
      { mode: "preview", emulator: emulator() },
    );
    expect(refused.errors.map((error) => error.message).join("\n")).toContain(
      "maxPollIntervalSeconds: must be between 1 and 300 seconds, not 0.5",
    );
  }, 60_000); // two runs, each bounded by the kit's 20 s: the kit, not jest, says which one hung

  it("refuses a zone id left as the stack file's placeholder, at preview, sending nothing", async () => {
    const run = await runProgram(
      () => {
        new Domain("zone", {
          name: "zone.example.com",
          cloudflare: { zoneId: "replace-me-with-your-zone-id" },
        });
        return {};
      },
      { mode: "preview", emulator: emulator() },
    );
    expect(run.errors.map((error) => error.message).join("\n")).toContain(
      'Domain zone: cloudflare.zoneId must be the zone\'s id, 32 hex digits (Cloudflare dashboard → the zone → Overview → Zone ID), not "replace-me-with-your-zone-id"',
    );
    expect(run.registrations.filter((r) => r.type === "cloudflare:index/dnsRecord:DnsRecord")).toEqual([]);
  });

  it("refuses a malformed emailDelivery:dnsResolver at preview, once, naming the key", async () => {
    const run = await runProgram(
      () => {
        new Domain("resolver", { name: "resolver.example.com", cloudflare: { zoneId: zoneId() } });
        return {};
      },
      {
        mode: "preview",
        emulator: emulator(),
        config: { "emailDelivery:dnsResolver": "localhost:53" },
      },
    );
    // The kit reports a constructor's throw as the program's error, and Pulumi's rejection as unhandled.
    expect([...new Set(run.errors.map((error) => error.message))]).toEqual([
      'Stack config emailDelivery:dnsResolver must be the IP address of a DNS server, with its port when not 53 (e.g. 127.0.0.1:7753 or [::1]:5353), not "localhost:53".',
    ]);
    expect(run.registrations.filter((r) => r.type === "cloudflare:index/dnsRecord:DnsRecord")).toEqual([]);
  });

  it("refuses a TTL Cloudflare would refuse, at preview", async () => {
    const run = await runProgram(
      () => {
        new Domain("ttl", { name: "ttl.example.com", cloudflare: { zoneId: zoneId(), ttl: 30 } });
        return {};
      },
      { mode: "preview", emulator: emulator() },
    );
    expect(run.errors.map((error) => error.message).join("\n")).toContain(
      "Domain ttl: cloudflare.ttl must be 1 (automatic) or a whole number of seconds from 60 to 86400, not 30",
    );
  });
});
