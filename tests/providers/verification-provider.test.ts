import { createVerificationProvider } from "../../provider/dynamic/verification-provider";
import { UNKNOWN } from "../../provider/inputs";
import type { DnsRecord } from "../../provider/client";
import { publishRecords, unpublishRecords } from "../support/cloudflare";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { configureFor, configureRequest, failure, verificationInputs } from "../support/providers";
import { ALL_CHECKS_OK } from "../support/checks";
import { InstantClock, instantClock } from "../support/fake-clock";
import { envelope, Script, startScriptedServer } from "../support/scripted-server";

/**
 * verificationProvider called directly, as the provider host calls it, against the emulator, with
 * its wait on an instant clock (the polls and their requests are real, the waits between them take
 * no time). tests/engine/providers.test.ts waits on the real clock, through the provider host.
 */
describe("verificationProvider", () => {
  let clock: InstantClock;
  beforeEach(() => (clock = instantClock()));
  const verificationProvider = createVerificationProvider({
    now: () => clock.now(),
    sleep: (ms) => clock.sleep(ms),
  });
  const emulator = useEmulator();
  beforeEach(() => configureFor(emulator(), [verificationProvider]));

  let logLines: string[];
  let logSpy: jest.SpyInstance;
  beforeEach(() => {
    logLines = [];
    logSpy = jest
      .spyOn(console, "log")
      .mockImplementation((line: unknown) => void logLines.push(String(line)));
  });
  afterEach(() => logSpy.mockRestore());

  /** A new domain in the zone, and its records. */
  const newDomain = async () => {
    const created = await clientFor(emulator()).createDomain(uniqueDomain("verify"));
    return { id: created.domain.id, name: created.domain.name, records: created.dnsRecords! };
  };
  const only = (records: DnsRecord[], ...purposes: string[]) =>
    records.filter((r) => purposes.includes(r.purpose));
  const inputs = verificationInputs;

  describe("check", () => {
    it("fills defaults: all four checks, 600 s, polls from 5 s, waits of at most 5 s, a receivers' rejection fails", async () => {
      expect(await verificationProvider.check({}, { domainId: 4 })).toEqual({
        inputs: {
          domainId: 4,
          checks: ["spf", "dkim", "mx", "returnPath"],
          timeoutSeconds: 600,
          pollIntervalSeconds: 5,
          maxPollIntervalSeconds: 5,
          whenReceiversReject: "fail",
        },
        failures: [],
      });
      // A longer poll interval than the default cap raises the cap with it (as before the cap was an input).
      expect(
        (await verificationProvider.check({}, { domainId: 4, pollIntervalSeconds: 20 })).inputs,
      ).toMatchObject({ pollIntervalSeconds: 20, maxPollIntervalSeconds: 20 });
      expect(
        (await verificationProvider.check({}, { domainId: 4, maxPollIntervalSeconds: 60 })).inputs,
      ).toMatchObject({ pollIntervalSeconds: 5, maxPollIntervalSeconds: 60 });
    });

    it("names a bad maxPollIntervalSeconds", async () => {
      const failures = async (news: Record<string, unknown>) =>
        (await verificationProvider.check({}, { domainId: 1, ...news })).failures;
      expect(await failures({ maxPollIntervalSeconds: 0 })).toEqual([
        { property: "maxPollIntervalSeconds", reason: "must be between 1 and 300 seconds, not 0" },
      ]);
      expect(await failures({ maxPollIntervalSeconds: "10" })).toEqual([
        { property: "maxPollIntervalSeconds", reason: 'must be a number of seconds, not the text "10"' },
      ]);
      expect(await failures({ pollIntervalSeconds: 10, maxPollIntervalSeconds: 5 })).toEqual([
        { property: "maxPollIntervalSeconds", reason: "must not be shorter than pollIntervalSeconds (10)" },
      ]);
      expect(await failures({ maxPollIntervalSeconds: UNKNOWN, pollIntervalSeconds: UNKNOWN })).toEqual([]);
    });

    it("names every bad property with a reason", async () => {
      const result = await verificationProvider.check(
        {},
        { domainId: 0, checks: ["spf", "DKIM", "spf"], timeoutSeconds: 0 },
      );
      expect(result.failures).toEqual([
        { property: "domainId", reason: "must be a positive whole number, not 0" },
        { property: "checks", reason: 'has the text "DKIM"; checks are spf, dkim, mx, returnPath' },
        { property: "timeoutSeconds", reason: "must be between 1 and 7200 seconds, not 0" },
      ]);
      expect((await verificationProvider.check({}, { domainId: 1, checks: [] })).failures).toEqual([
        { property: "checks", reason: "must name at least one of spf, dkim, mx, returnPath" },
      ]);
      expect(
        (await verificationProvider.check({}, { domainId: 1, timeoutSeconds: 10, pollIntervalSeconds: 30 }))
          .failures,
      ).toEqual([{ property: "pollIntervalSeconds", reason: "must not be longer than timeoutSeconds (10)" }]);
    });

    it("lets unknown values through", async () => {
      expect(
        (await verificationProvider.check({}, { domainId: UNKNOWN, checks: ["spf", UNKNOWN] })).failures,
      ).toEqual([]);
    });

    it("takes the domain's records and zone, naming what is wrong with them", async () => {
      const record = {
        purpose: "dkim",
        type: "TXT",
        name: "k._domainkey.mail.example.com",
        content: "v=DKIM1;",
      };
      const zoneId = "023e105f4ecef8ad9ca31a8372d0c353";
      const checked = await verificationProvider.check({}, { domainId: 1, dnsRecords: [record], zoneId });
      expect(checked.failures).toEqual([]);
      expect(checked.inputs).toMatchObject({ dnsRecords: [record], zoneId });
      expect(
        (await verificationProvider.check({}, { domainId: 1, dnsRecords: [UNKNOWN], zoneId: UNKNOWN }))
          .failures,
      ).toEqual([]);
      const failures = (
        await verificationProvider.check(
          {},
          { domainId: 1, dnsRecords: [record, { name: "x" }], zoneId: "example.com" },
        )
      ).failures;
      expect(failures).toEqual([
        {
          property: "dnsRecords",
          reason: "[1] has no purpose (a record has purpose, type, name and content)",
        },
        { property: "zoneId", reason: expect.stringContaining("must be the zone's id, 32 hex digits") },
      ]);
    });
  });

  describe("diff", () => {
    const verified = { ...inputs(1), verified: true };

    it("waits for nothing when only the records or the zone change (they only explain a wait)", async () => {
      const record = { purpose: "spf", type: "TXT", name: "mail.example.com", content: "v=spf1 ~all" };
      const zoneId = "023e105f4ecef8ad9ca31a8372d0c353";
      const diff = await verificationProvider.diff("1", verified, {
        ...inputs(1),
        dnsRecords: [record],
        zoneId,
      });
      expect(diff).toMatchObject({ changes: false, replaces: [] });
    });

    it("sees no change for a verified domain with the same inputs", async () => {
      expect(await verificationProvider.diff("1", verified, inputs(1, { __provider: "new text" }))).toEqual({
        changes: false,
        replaces: [],
      });
    });

    it("waits again when the last result was not verified", async () => {
      expect(await verificationProvider.diff("1", { ...verified, verified: false }, inputs(1))).toEqual({
        changes: true,
        replaces: [],
      });
    });

    it("sees no change for state written before maxPollIntervalSeconds existed, and waits again when it changes", async () => {
      const { maxPollIntervalSeconds: _absent, ...older } = {
        ...verified,
        maxPollIntervalSeconds: undefined,
      };
      const checked = (await verificationProvider.check({}, inputs(1))).inputs;
      expect(checked.maxPollIntervalSeconds).toBe(5);
      expect(await verificationProvider.diff("1", older, checked)).toEqual({ changes: false, replaces: [] });
      expect(await verificationProvider.diff("1", older, inputs(1))).toEqual({
        changes: false,
        replaces: [],
      });
      expect(await verificationProvider.diff("1", older, { ...checked, maxPollIntervalSeconds: 10 })).toEqual(
        {
          changes: true,
          replaces: [],
        },
      );
    });

    it("waits again when the checks change, and replaces for another domain", async () => {
      expect(await verificationProvider.diff("1", verified, inputs(1, { checks: ["spf"] }))).toEqual({
        changes: true,
        replaces: [],
      });
      expect(await verificationProvider.diff("1", verified, inputs(2))).toEqual({
        changes: true,
        replaces: ["domainId"],
      });
    });
  });

  it("completes once the records are published, with one check per poll and progress lines", async () => {
    const domain = await newDomain();
    clock.afterSleep = () => publishRecords(emulator(), domain.records); // after the first poll
    emulator().requests.clear();
    const { id, outs } = await verificationProvider.create(inputs(domain.id));
    expect(id).toBe(String(domain.id));
    expect(outs).toEqual({
      domainId: domain.id,
      checks: ["spf", "dkim", "mx", "returnPath"],
      timeoutSeconds: 10,
      pollIntervalSeconds: 1,
      verified: true,
      ...ALL_CHECKS_OK,
    });
    expect(emulator().requests.count("domains/check")).toBe(2);
    expect(logLines).toHaveLength(1); // one line per unsuccessful poll
    expect(logLines[0]).toMatch(
      new RegExp(
        `^info: \\[runtime\\] ${domain.name}: waiting for SPF \\(Missing\\), DKIM \\(Missing\\), MX \\(Missing\\), Return path \\(Missing\\); \\d+s left$`,
      ),
    );
  });

  it("names each domain from the process's list: verifications of domains it made list nothing", async () => {
    const domains = [await newDomain(), await newDomain(), await newDomain()];
    emulator().requests.clear();
    for (const domain of domains) {
      logLines = [];
      clock.afterSleep = () => publishRecords(emulator(), domain.records); // after the first poll
      const { outs } = await verificationProvider.create(inputs(domain.id));
      expect(outs.verified).toBe(true);
      expect(logLines).toEqual([expect.stringContaining(`] ${domain.name}: waiting for SPF (Missing)`)]);
    }
    // Each check is applied to that list (write-through) instead of making it be asked for again.
    expect(emulator().requests.count("domains/check")).toBe(6);
    expect(emulator().requests.count("domains/list")).toBe(0);
  });

  it("costs one domains/check for a domain whose records are already right, and nothing else", async () => {
    const domain = await newDomain();
    await publishRecords(emulator(), domain.records);
    emulator().requests.clear();
    const { outs } = await verificationProvider.create(inputs(domain.id));
    expect(outs.verified).toBe(true);
    expect(
      emulator()
        .requests.all()
        .map((entry) => entry.endpoint),
    ).toEqual(["domains/check"]);
  });

  it("keeps waiting through failed checks, with exactly one request per poll", async () => {
    const domain = await newDomain();
    await publishRecords(emulator(), domain.records);
    emulator().faults.set([{ endpoints: "domains/check", rate503: 1, times: 2 }]);
    emulator().requests.clear();
    try {
      const { outs } = await verificationProvider.create(inputs(domain.id));
      expect(outs.verified).toBe(true);
    } finally {
      emulator().faults.set([]);
    }
    const checks = emulator()
      .requests.all()
      .filter((entry) => entry.endpoint === "domains/check");
    expect(checks.map((entry) => entry.status)).toEqual([503, 503, 200]);
    // Each failed request was a poll of its own (the client did not retry within a poll).
    expect(logLines).toHaveLength(2);
    expect(logLines[0]).toMatch(
      /: the service did not answer; \d+s left \(last check: domains\/check failed \(transient\)/,
    );
  });

  it("waits only for the checks asked for", async () => {
    const domain = await newDomain();
    await publishRecords(emulator(), only(domain.records, "spf", "dkim"));
    const { outs } = await verificationProvider.create(inputs(domain.id, { checks: ["spf", "dkim"] }));
    expect(outs).toMatchObject({ verified: true, spfStatus: "OK", dkimStatus: "OK", mxStatus: "Missing" });
  });

  it("fails on timeout with a table of every check, and stays in state as not verified", async () => {
    const domain = await newDomain();
    const dkim = domain.records.find((r) => r.purpose === "dkim")!;
    await publishRecords(emulator(), [
      ...only(domain.records, "spf", "mx", "return_path"),
      { ...dkim, content: "v=DKIM1; p=WRONG;" },
    ]);
    const error = await failure(
      verificationProvider.create(inputs(domain.id, { timeoutSeconds: 2, pollIntervalSeconds: 1 })),
    );
    const dkimError = `The DKIM record at ${dkim.name} does not match the record we have provided. Please check it has been copied correctly.`;
    expect(error.message).toContain(`${domain.name} did not pass verification within 2 s (`);
    expect(error.message).toContain("failing: dkim):");
    // The service's text wrapped in its column, within 80 columns, as the doctor shows it.
    const table = error.message.slice(
      error.message.indexOf("  check"),
      error.message.indexOf("\nFix the records"),
    );
    expect(table.split("\n")[0]).toBe("  check         status    service says");
    expect(table).toMatch(/^ {2}SPF {11}OK\n {2}DKIM {10}Invalid {3}The DKIM record at/m);
    expect(table).toMatch(/\n {2}MX {12}OK\n {2}Return path {3}OK$/);
    expect(table.replace(/\s+/g, " ")).toContain(dkimError);
    for (const line of table.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
    // Pulumi keeps a resource whose create fails with an id: the next `up` updates it (waits again).
    expect(error.id).toBe(String(domain.id));
    expect(error.reasons).toEqual([error.message]);
    expect(error.properties).toMatchObject({
      domainId: domain.id,
      verified: false,
      dkimStatus: "Invalid",
      dkimError,
      __provider: "serialized provider text",
    });
  });

  it("re-checks on refresh: broken records read as not verified, and the next update waits again", async () => {
    const domain = await newDomain();
    const ids = await publishRecords(emulator(), domain.records);
    const { id, outs } = await verificationProvider.create(inputs(domain.id));
    expect(outs.verified).toBe(true);

    const dkimIndex = domain.records.findIndex((r) => r.purpose === "dkim");
    await unpublishRecords(emulator(), [ids[dkimIndex]]);
    const read = await verificationProvider.read(id, outs);
    expect(read.props).toMatchObject({ verified: false, dkimStatus: "Missing" });
    expect(await verificationProvider.diff(id, read.props, inputs(domain.id))).toEqual({
      changes: true,
      replaces: [],
    });

    await publishRecords(emulator(), [domain.records[dkimIndex]]);
    const updated = await verificationProvider.update(id, read.props, inputs(domain.id));
    expect(updated.outs).toMatchObject({ verified: true, dkimStatus: "OK" });
  });

  it("reads as gone once the domain is deleted, and deletes without touching the service", async () => {
    const domain = await newDomain();
    await publishRecords(emulator(), domain.records);
    const { id, outs } = await verificationProvider.create(inputs(domain.id));
    await clientFor(emulator()).deleteDomain(domain.id);
    expect(await verificationProvider.read(id, outs)).toEqual({ id: undefined, props: {} });
    emulator().requests.clear();
    await verificationProvider.delete(id, outs);
    expect(emulator().requests.all()).toEqual([]);
  });

  it("fails at once for a domain that does not exist", async () => {
    const error = await failure(verificationProvider.create(inputs(987654)));
    expect(error.message).toBe("Domain 987654 does not exist on the email service: nothing to verify.");
  });

  describe("against other deployments and broken networks", () => {
    const KEY = "ScriptedKey0000000000001";
    const checkData = {
      spf_status: "OK",
      spf_error: null,
      dkim_status: "OK",
      dkim_error: null,
      mx_status: "OK",
      mx_error: null,
      return_path_status: "OK",
      return_path_error: null,
    };

    /** The verification provider configured for a scripted server, and what the server received. */
    async function scriptedService(scripts: Script[]) {
      const server = await startScriptedServer(scripts);
      await verificationProvider.configure(
        configureRequest({ "emailDelivery:baseUrl": server.url, "emailDelivery:apiKey": KEY }),
      );
      return server;
    }

    it("treats an unknown error code and a proxy's HTML page as 'not yet', and keeps polling", async () => {
      const server = await scriptedService([
        { status: 200, body: envelope({ code: "SomethingNew", message: "try later" }, "error") },
        { status: 502, body: "<html><body><h1>502 Bad Gateway</h1></body></html>" },
        { status: 200, body: envelope(checkData) },
      ]);
      try {
        const { outs } = await verificationProvider.create(inputs(41, { timeoutSeconds: 60 }));
        expect(outs).toMatchObject({ domainId: 41, verified: true, ...ALL_CHECKS_OK });
        expect(server.received.map((request) => request.path)).toEqual([
          "/api/v1/domains/check",
          "/api/v1/domains/check",
          "/api/v1/domains/check",
        ]);
      } finally {
        await server.close();
      }
    });

    it("abandons a hung check request and polls again, well within the timeout", async () => {
      // 8 s: each request gets at most 2 s (a quarter), so the hung one leaves time to poll again.
      const server = await scriptedService([{ hang: true }, { status: 200, body: envelope(checkData) }]);
      try {
        const { outs } = await verificationProvider.create(inputs(42, { timeoutSeconds: 8 }));
        expect(outs).toMatchObject({ verified: true });
        expect(server.received.length).toBeGreaterThanOrEqual(2);
      } finally {
        await server.close();
      }
    });

    it("after a total outage, says the service could not be reached, not that records need fixing", async () => {
      const server = await scriptedService([
        { status: 502, body: `<html><h1>Bad Gateway</h1><p>upstream refused key ${KEY}</p></html>` },
      ]);
      try {
        const error = await failure(
          verificationProvider.create(inputs(43, { timeoutSeconds: 2, pollIntervalSeconds: 1 })),
        );
        const tries =
          /^Domain 43 could not be verified: the email service answered none of (\d+) checks? in 2 s\.$/m.exec(
            error.message,
          );
        expect(tries).not.toBeNull();
        // Every request the server saw was one of those tries (a request lost on the way is one too).
        expect(Number(tries![1])).toBeGreaterThanOrEqual(Math.max(1, server.received.length));
        expect(error.message).toContain(
          "The last one failed: domains/check failed (transient): answered HTTP 502",
        );
        expect(error.message).not.toMatch(/fix the records/i);
        expect(error.message).not.toContain("not checked");
        expect(error.message).not.toContain(KEY);
        // Still kept in state as not verified, so the next `up` waits again.
        expect(error.id).toBe("43");
        expect(error.properties).toMatchObject({ domainId: 43, verified: false, spfStatus: null });
      } finally {
        await server.close();
      }
    });
  });
});
