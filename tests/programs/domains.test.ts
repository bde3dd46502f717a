import { Emulator } from "../../emulator";
import { Domain, DomainArgs, Route } from "../../provider";
import { unquoteTxt } from "../../provider/dns";
import { useEmulator } from "../support/emulator";
import { CLAIMED_RECORD_TYPE, ProgramRun, Registration, runProgram, UNKNOWN_MARKER } from "../../testing";

/**
 * The program the issue describes, under `setMocks`: two domains (one publishing its records in
 * Cloudflare, one whose DNS is elsewhere) and two routes on the first. Preview executes nothing;
 * the live runs execute the dynamic providers against the emulator and write the DnsRecords to
 * its Cloudflare stand-in, so the verification passes (or not) through real DNS queries.
 */

const COMPONENT_TYPE = "email-delivery:index:Domain";
const SERVICE_DOMAIN = "email-delivery:Domain";
const VERIFICATION = "email-delivery:DomainVerification";
const ROUTE = "email-delivery:Route";

interface Names {
  primary: string;
  secondary: string;
}

let counter = 0;
function freshNames(): Names {
  counter += 1;
  return { primary: `mail${counter}.example.com`, secondary: `news${counter}.example.org` };
}

function program(emulator: Emulator, names: Names, verification: DomainArgs["verification"] = {}) {
  const zoneId = emulator.cloudflare.zones[0].id;
  const [support, archive] = emulator.state.endpoints;
  return () => {
    const primary = new Domain("primary", {
      name: names.primary,
      cloudflare: { zoneId },
      verification: verification && { timeoutSeconds: 20, pollIntervalSeconds: 1, ...verification },
    });
    // DNS hosted elsewhere: records are only outputs; nobody publishes them, so no waiting.
    const secondary = new Domain("secondary", { name: names.secondary, verification: false });
    const supportRoute = new Route("support", {
      name: "support",
      domainId: primary.domainId,
      endpointId: support.id,
      mode: "Endpoint",
      spamMode: "Quarantine",
    });
    const catchAll = new Route("catch-all", {
      name: "*",
      domainId: primary.domainId,
      endpointId: archive.id,
      mode: "Hold",
    });
    return {
      domainId: primary.domainId,
      uuid: primary.uuid,
      dnsRecords: primary.dnsRecords,
      spfStatus: primary.spfStatus,
      dkimStatus: primary.dkimStatus,
      mxStatus: primary.mxStatus,
      returnPathStatus: primary.returnPathStatus,
      verified: primary.verified,
      recordIds: primary.records.apply((records) => records.map((record) => record.id)),
      secondaryDomainId: secondary.domainId,
      secondaryDnsRecords: secondary.dnsRecords,
      secondaryVerified: secondary.verified,
      secondaryRecords: secondary.records,
      supportRouteId: supportRoute.routeId,
      catchAllRouteId: catchAll.routeId,
    };
  };
}

const recordNames = ["primary-spf", "primary-dkim", "primary-return-path", "primary-mx-0", "primary-mx-1"];
const comment = (stack: string, purpose: string) => `pulumi email-delivery/${stack}: email ${purpose}`;

/** Every quoted string of TXT content, unescaped. */
const txtStrings = (content: string) => content.match(/"(?:[^"\\]|\\.)*"/g)!.map((s) => s.slice(1, -1));

describe("program: two domains and routes, preview", () => {
  const emulator = useEmulator();

  it("fails a bad input at preview, naming the property, before anything is sent", async () => {
    emulator().requests.clear();
    // One run per bad resource: the engine stops at the first failed check, and which of two
    // concurrent registrations fails first is not fixed. The kit ends a run once a failure leaves
    // nothing moving, as the engine stops; no short run timeout is needed (nor wanted: a busy
    // machine could reach it).
    const options = { mode: "preview", emulator: emulator() } as const;
    const domainRun = await runProgram(() => {
      new Domain("bad", { name: "Mail.Example.com" });
      return {};
    }, options);
    const routeRun = await runProgram(() => {
      // A plain domain id: a route that depended on the failed domain would never register.
      new Route("bad-route", {
        name: "help@x",
        domainId: 1,
        endpointId: 1,
        mode: "Accept" as "Hold",
      });
      return {};
    }, options);
    const messages = (run: typeof domainRun) => run.errors.map((error) => error.message).join("\n");
    expect(messages(domainRun)).toContain(
      'Domain bad: name "Mail.Example.com" must be lowercase (the service refuses upper case): use "mail.example.com"',
    );
    expect(messages(routeRun)).toContain('name: is the local part only, without "@domain": use "help"');
    expect(messages(routeRun)).toContain(
      'mode: must be one of Endpoint, Bounce, Hold, Reject, not the text "Accept"',
    );
    expect(emulator().requests.all()).toEqual([]);
  }, 60_000); // two runs, each bounded by the kit's 20 s: the kit, not jest, says which one hung

  it("shows the records known before the domain exists, reading the zone and writing nothing", async () => {
    const names = freshNames();
    emulator().requests.clear();
    const run = await runProgram(program(emulator(), names), {
      mode: "preview",
      emulator: emulator(),
      stack: "staging",
    });

    expect(run.errors).toEqual([]);
    // Only the zone is read: once, whole (one domain's two pages hold it), page by page until an
    // empty page, as the Cloudflare provider reads it.
    const zone = emulator().cloudflare.zones[0];
    const held = emulator().state.cloudflare.records.filter((record) => record.zoneId === zone.id).length;
    expect(held).toBeLessThan(200);
    expect(emulator().requests.counts()).toEqual({
      "cloudflare:dns_records.list": Math.ceil(held / 100) + 1,
    });
    expect(run.invokes.map((invoke) => invoke.inputs)).toEqual([{ zoneId: zone.id, maxItems: 200 }]);

    expect(
      run
        .ofType(COMPONENT_TYPE)
        .map((r) => r.name)
        .sort(),
    ).toEqual(["primary", "secondary"]);
    expect(run.get(SERVICE_DOMAIN, "primary").inputs).toMatchObject({ name: names.primary });
    expect(run.get(SERVICE_DOMAIN, "secondary").inputs).toMatchObject({ name: names.secondary });

    // SPF, DKIM and return path are declared up front; MX records wait for the service's answer.
    const records = run.ofType(CLAIMED_RECORD_TYPE);
    expect(records.map((r) => r.name).sort()).toEqual(["primary-dkim", "primary-return-path", "primary-spf"]);
    const component = run.get(COMPONENT_TYPE, "primary");
    for (const record of records) {
      expect(record.parent).toBe(component.urn);
      // Written unproxied by the records' provider: mail names must resolve to the service.
      expect(record.inputs.policy).toBe("fail");
      // Name and content come from the service; everything else is known before the domain exists.
      expect(record.inputs).toMatchObject({
        name: UNKNOWN_MARKER,
        content: UNKNOWN_MARKER,
        zoneId: emulator().cloudflare.zones[0].id,
        ttl: 300,
        comment: expect.stringMatching(/^pulumi email-delivery\/staging: email /),
      });
    }
    expect(run.get(CLAIMED_RECORD_TYPE, "primary-spf").inputs.type).toBe("TXT");
    expect(run.get(CLAIMED_RECORD_TYPE, "primary-dkim").inputs.type).toBe("TXT");
    expect(run.get(CLAIMED_RECORD_TYPE, "primary-return-path").inputs.type).toBe("CNAME");

    const verification = run.get(VERIFICATION, "primary-verification");
    expect(verification.inputs).toMatchObject({
      domainId: UNKNOWN_MARKER,
      timeoutSeconds: 20,
      pollIntervalSeconds: 1,
    });
    // The verification never checks before the records exist, and a preview shows it.
    expect(run.dependsOn(verification, run.get(SERVICE_DOMAIN, "primary"))).toBe(true);
    for (const record of records) expect(run.dependsOn(verification, record)).toBe(true);
    expect(run.ofType(VERIFICATION)).toHaveLength(1); // the secondary domain does not wait

    expect(run.get(ROUTE, "support").inputs).toMatchObject({
      name: "support",
      domainId: UNKNOWN_MARKER,
      endpointId: emulator().state.endpoints[0].id,
      mode: "Endpoint",
      spamMode: "Quarantine",
    });
    expect(run.get(ROUTE, "catch-all").inputs).toMatchObject({ name: "*", mode: "Hold" });
    expect(run.outputs).toMatchObject({
      domainId: UNKNOWN_MARKER,
      verified: UNKNOWN_MARKER,
      secondaryVerified: false,
    });
  });
});

describe("program: two domains and routes, live, 2048-bit DKIM", () => {
  const emulator = useEmulator({ dns: { dkimKeyBits: 2048 } });
  const names = freshNames();
  let run: ProgramRun<string>;

  beforeAll(async () => {
    run = await runProgram(program(emulator(), names), {
      mode: "live",
      emulator: emulator(),
      stack: "staging",
    });
  });

  it("finishes without errors, verified through real DNS, all four checks OK", () => {
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      spfStatus: "OK",
      dkimStatus: "OK",
      mxStatus: "OK",
      returnPathStatus: "OK",
      verified: true,
    });
    const domain = emulator().state.domains.find((d) => d.name === names.primary)!;
    expect(run.outputs.domainId).toBe(domain.id);
    expect(run.outputs.uuid).toBe(domain.uuid);
    expect(domain).toMatchObject({
      spfStatus: "OK",
      dkimStatus: "OK",
      mxStatus: "OK",
      returnPathStatus: "OK",
    });
    // The records existed before the verification started, so its first check passed.
    expect(emulator().requests.count("domains/check")).toBe(1);
    expect(run.providerLogs).toEqual([]);
  });

  it("registers one DnsRecord per record with the arguments Cloudflare keeps as sent", () => {
    const records = run.ofType(CLAIMED_RECORD_TYPE);
    expect(records.map((r) => r.name).sort()).toEqual([...recordNames].sort());
    const zoneId = emulator().cloudflare.zones[0].id;
    const dkimHost = (run.outputs.dnsRecords as { purpose: string; name: string }[]).find(
      (r) => r.purpose === "dkim",
    )!.name;

    expect(run.get(CLAIMED_RECORD_TYPE, "primary-spf").inputs).toEqual({
      zoneId,
      name: names.primary,
      type: "TXT",
      content: '"v=spf1 a mx include:spf.postal.example.com ~all"',
      ttl: 300,
      comment: comment("staging", "spf"),
      purpose: "spf",
      policy: "fail",
      owner: "email-delivery/staging",
    });
    expect(run.get(CLAIMED_RECORD_TYPE, "primary-return-path").inputs).toEqual({
      zoneId,
      name: `psrp.${names.primary}`,
      type: "CNAME",
      content: "rp.postal.example.com",
      ttl: 300,
      comment: comment("staging", "return path"),
      purpose: "return_path",
      policy: "fail",
      owner: "email-delivery/staging",
    });
    const mx = ["primary-mx-0", "primary-mx-1"].map((name) => run.get(CLAIMED_RECORD_TYPE, name).inputs);
    expect(mx).toEqual([
      expect.objectContaining({
        name: names.primary,
        type: "MX",
        content: "mx1.postal.example.com",
        priority: 10,
      }),
      expect.objectContaining({
        name: names.primary,
        type: "MX",
        content: "mx2.postal.example.com",
        priority: 10,
      }),
    ]);
    for (const args of mx)
      expect(args).toMatchObject({ ttl: 300, policy: "fail", comment: comment("staging", "mx") });

    // A 2048-bit key makes the DKIM value longer than one TXT string: sent split, ≤255 bytes each.
    const dkim = run.get(CLAIMED_RECORD_TYPE, "primary-dkim").inputs;
    expect(dkim).toMatchObject({
      zoneId,
      name: dkimHost.toLowerCase(),
      type: "TXT",
      ttl: 300,
      policy: "fail",
    });
    const strings = txtStrings(String(dkim.content));
    expect(strings.length).toBeGreaterThan(1);
    for (const part of strings) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(255);
    expect(unquoteTxt(String(dkim.content))).toMatch(/^v=DKIM1; t=s; h=sha256; p=[A-Za-z0-9+/=]{300,};$/);
  });

  it("wrote exactly those records to the Cloudflare stand-in, stored as sent", () => {
    const stored = emulator().state.cloudflare.records;
    for (const record of run.ofType(CLAIMED_RECORD_TYPE)) {
      const match = stored.find((s) => s.id === record.id)!;
      expect(match).toMatchObject({
        name: record.inputs.name,
        type: record.inputs.type,
        content: record.inputs.content, // already split, so nothing for Cloudflare to re-split
        ttl: 300,
        proxied: false,
        priority: record.inputs.type === "MX" ? 10 : null,
        comment: record.inputs.comment,
      });
    }
    expect(run.outputs.recordIds).toEqual(
      expect.arrayContaining(run.ofType(CLAIMED_RECORD_TYPE).map((r) => r.id)),
    );
    // The secondary domain publishes nothing.
    expect(stored.filter((s) => s.name.endsWith(names.secondary))).toEqual([]);
    expect(run.outputs.secondaryRecords).toEqual([]);
  });

  it("orders the work: records before the verification, the verification before the routes", () => {
    const verification = run.get(VERIFICATION, "primary-verification");
    for (const record of run.ofType(CLAIMED_RECORD_TYPE)) {
      expect(run.dependsOn(verification, record)).toBe(true);
      expect(verification.seq).toBeGreaterThan(record.doneSeq!);
    }
    for (const route of run.ofType(ROUTE)) {
      expect(run.dependsOn(route, verification)).toBe(true);
      expect(route.seq).toBeGreaterThan(verification.doneSeq!);
    }
  });

  it("created the routes and the second domain on the service", () => {
    const domain = emulator().state.domains.find((d) => d.name === names.primary)!;
    const routes = emulator().state.routes.filter((r) => r.domainId === domain.id);
    const [support, archive] = emulator().state.endpoints;
    expect(routes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: run.outputs.supportRouteId,
          name: "support",
          endpointId: support.id,
          mode: "Endpoint",
          spamMode: "Quarantine",
        }),
        expect.objectContaining({
          id: run.outputs.catchAllRouteId,
          name: "*",
          endpointId: archive.id,
          mode: "Hold",
          spamMode: "Mark",
        }),
      ]),
    );
    expect(routes).toHaveLength(2);

    const secondary = emulator().state.domains.find((d) => d.name === names.secondary)!;
    expect(run.outputs.secondaryDomainId).toBe(secondary.id);
    expect(run.outputs.secondaryVerified).toBe(false);
    expect((run.outputs.secondaryDnsRecords as { purpose: string }[]).map((r) => r.purpose).sort()).toEqual([
      "dkim",
      "mx",
      "mx",
      "return_path",
      "spf",
    ]);
  });

  it("keeps the API key out of every serialized provider and every input", () => {
    const key = emulator().emailApi.apiKey;
    for (const registration of run.registrations) {
      expect(registration.serializedProvider ?? "").not.toContain(key);
      expect(JSON.stringify(registration.inputs)).not.toContain(key);
      expect(JSON.stringify(registration.state ?? {})).not.toContain(key);
    }
  });
});

describe("program: a corrupted DKIM record", () => {
  const emulator = useEmulator();

  it("fails within its timeout with the check table naming DKIM; the routes are never created", async () => {
    const names = freshNames();
    const started = Date.now();
    const run = await runProgram(program(emulator(), names, { timeoutSeconds: 3, pollIntervalSeconds: 1 }), {
      mode: "live",
      emulator: emulator(),
      hooks: {
        // What reaches Cloudflare differs from what the program declared: a stale key.
        cloudflareRecord: (body, registration: Registration) =>
          registration.name === "primary-dkim"
            ? { ...body, content: '"v=DKIM1; t=s; h=sha256; p=AAAA;"' }
            : body,
      },
    });
    const elapsed = Date.now() - started;

    const verification = run.get(VERIFICATION, "primary-verification");
    expect(verification.status).toBe("failed");
    const message = verification.error!;
    expect(message).toContain(`${names.primary} did not pass verification within 3 s`);
    // The service's text is wrapped in its column (80 columns in all).
    expect(message).toMatch(/^\s+DKIM\s+Invalid\s+The DKIM record at\s+\S+\s+does not\s+match/m);
    for (const label of ["SPF", "MX", "Return path"]) {
      expect(message).toMatch(new RegExp(`^\\s+${label}\\s+OK\\s*$`, "m"));
    }
    // Kept in state as not verified, so the next `up` resumes the wait.
    expect(verification.initFailure).toMatchObject({
      id: String(emulator().state.domains.find((d) => d.name === names.primary)!.id),
      properties: { verified: false, dkimStatus: "Invalid", spfStatus: "OK" },
    });
    // The Domain gives its verification the records: the wait asks DNS first (the kit points it
    // at the emulator's nameservers), so its progress lines say what DNS serves, by name; the
    // service is asked at the deadline, and the failure has both.
    expect(run.providerLogs).toContainEqual(
      expect.stringMatching(
        new RegExp(`${names.primary}: waiting for DKIM \\(exists with another value\\); `),
      ),
    );
    expect(message).toContain("What DNS serves, check by check:");
    expect(message).toMatch(/DKIM: .*another value/);
    expect(message).toContain("p=AAAA;");

    // 3 s of waiting plus set-up, not a default 10-minute wait. The bound is 10 times the wait, so
    // that set-up on a loaded machine (seconds) cannot reach it; it still fails a wait of minutes.
    expect(elapsed).toBeGreaterThanOrEqual(3000);
    expect(elapsed).toBeLessThan(30_000);
    expect(run.ofType(ROUTE)).toEqual([]);
    expect(emulator().state.routes).toEqual([]);
    // The failed wait is the one error: the outputs it leaves unresolved are not errors of their own.
    expect(run.errors).toEqual([
      expect.objectContaining({ source: "registration", message: expect.stringContaining("DKIM") }),
    ]);
    expect(run.outputs).not.toHaveProperty("verified");
  }, 60_000); // past the 30 s bound above, so that the bound, not jest, says what went wrong
});
