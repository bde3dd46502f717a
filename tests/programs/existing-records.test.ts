import { promises as dns } from "node:dns";
import { Domain, DomainArgs } from "../../provider";
import { quoteTxt, unquoteTxt } from "../../provider/dns";
import { zoneRecordsApi } from "../support/cloudflare";
import { useEmulator } from "../support/emulator";
import {
  publishAddresses,
  publishServiceSpf,
  SERVICE_INCLUDE,
  publishGoogleSpf,
  ZONES_WITH_GOOGLE,
} from "../support/service-spf";
import {
  CloudflareRecordInput,
  destroyRun,
  CLAIMED_RECORD_TYPE,
  ProgramRun,
  runProgram,
  RunOptions,
} from "../../testing";

/**
 * DNS ownership: a zone that already holds records where a domain publishes its own. Programs run
 * under the live mocks against the emulator: the zone is read through `cloudflare.getDnsRecords`
 * (answered from the Cloudflare stand-in as the provider reads it), claimed records are written
 * by the package itself, verification resolves the records through the emulator's DNS server,
 * and `destroyRun` deletes what a run made as `pulumi destroy` would.
 */

const CLAIMED = "email-delivery:ClaimedDnsRecord";
const SERVICE_DOMAIN = "email-delivery:Domain";
const SERVICE_SPF = "v=spf1 a mx include:spf.postal.example.com ~all";
const GOOGLE_SPF = "v=spf1 include:_spf.google.com ~all";

const emulator = useEmulator({ zones: ZONES_WITH_GOOGLE });
let zoneId: string;
let serviceSpfId: string;
let counter = 0;
/** A domain name no other test uses, in the stand-in's zone (example.com). */
const freshName = () => `own${++counter}-${process.pid}.example.com`;

beforeAll(async () => {
  zoneId = emulator().cloudflare.zones[0].id;
  // SPF lookups (the merge's limit check) resolve through the emulator's DNS server, never elsewhere.
  dns.setServers([emulator().dns.address]);
  serviceSpfId = await publishServiceSpf(emulator());
  await publishGoogleSpf(emulator());
});

/** Cloudflare's API on the stand-in, as a user's own tooling or the dashboard would call it. */
function cloudflare(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  return zoneRecordsApi(emulator(), method, path, body);
}

/** A record made by hand, before the stack runs (TXT content given unquoted). */
const userRecord = (fields: CloudflareRecordInput) =>
  emulator().cloudflare.addRecord(zoneId, {
    ttl: 3600,
    ...fields,
    content: fields.type === "TXT" ? quoteTxt(fields.content) : fields.content,
  });

/** The zone's records at `name`, as Cloudflare holds them. */
const recordsAt = (name: string) => emulator().cloudflare.records(zoneId, { name });

const txtAt = (name: string) =>
  recordsAt(name)
    .filter((r) => r.type === "TXT")
    .map((r) => unquoteTxt(r.content));

function domainProgram(name: string, args: Partial<DomainArgs> = {}) {
  return () => {
    const domain = new Domain("mail", {
      name,
      ...args,
      cloudflare: { zoneId, ...args.cloudflare },
      verification: args.verification ?? { timeoutSeconds: 30, pollIntervalSeconds: 1 },
    });
    return {
      verified: domain.verified,
      spfStatus: domain.spfStatus,
      mxStatus: domain.mxStatus,
      returnPathStatus: domain.returnPathStatus,
      domainId: domain.domainId,
    };
  };
}

const live = (): RunOptions => ({ mode: "live", emulator: emulator(), timeoutMs: 60_000 });
const preview = (): RunOptions => ({ mode: "preview", emulator: emulator() });
const writes = () =>
  emulator()
    .requests.all()
    .filter((entry) => !entry.endpoint.endsWith(".list") && !entry.endpoint.endsWith(".get"));
const messages = (run: ProgramRun<string>) => run.errors.map((error) => error.message).join("\n");

describe("a record in the way, with the default policy", () => {
  it("fails the preview naming the record, its content and the choices; nothing is written", async () => {
    const name = freshName();
    await userRecord({ name, type: "TXT", content: GOOGLE_SPF, comment: "office mail" });
    emulator().requests.clear();
    const run = await runProgram(domainProgram(name), preview());
    expect(messages(run)).toContain(
      "Domain mail: 1 record conflicts with what the zone already holds:\n" +
        `  - cloudflare.existingRecords.spf ("fail"): the zone already has an SPF record at ${name} that this ` +
        `stack did not make: TXT "${GOOGLE_SPF}"`,
    );
    expect(messages(run)).toContain('comment "office mail"');
    expect(messages(run)).toContain("`cloudflare.existingRecords.spf`");
    expect(writes()).toEqual([]);
    expect(run.ofType(SERVICE_DOMAIN).every((r) => r.status !== "created")).toBe(true);
  });

  it("creates nothing on the service in an `up` either: the domain waits for the zone check", async () => {
    const name = freshName();
    await userRecord({ name: `psrp.${name}`, type: "CNAME", content: "bounces.elsewhere.example.net" });
    emulator().requests.clear();
    const run = await runProgram(domainProgram(name), live());
    expect(messages(run)).toContain(`a return-path record at psrp.${name} that this stack did not make`);
    expect(writes()).toEqual([]);
    expect(emulator().state.domains.some((domain) => domain.name === name)).toBe(false);
  });

  it("refuses Google's MX records at the apex at preview: mail would be split", async () => {
    const name = freshName();
    await userRecord({ name, type: "MX", content: "aspmx.l.google.com", priority: 1 });
    await userRecord({ name, type: "MX", content: "alt1.aspmx.l.google.com", priority: 5 });
    const run = await runProgram(domainProgram(name), preview());
    expect(messages(run)).toContain(
      `the zone already has MX records at ${name} that this stack did not make`,
    );
    expect(messages(run)).toContain('MX 1 "aspmx.l.google.com"');
    expect(messages(run)).toContain("split incoming mail");
  });
});

describe("adopt: an identical record", () => {
  it("is managed without a second create, and left as it was on destroy", async () => {
    const name = freshName();
    const theirs = await userRecord({ name, type: "TXT", content: SERVICE_SPF, comment: "set up by hand" });
    const before = new Set(emulator().state.cloudflare.records.map((record) => record.id));
    const madeSince = (ids: Set<string>) =>
      emulator()
        .state.cloudflare.records.filter((record) => !ids.has(record.id) && record.name.endsWith(name))
        .map((record) => record.type)
        .sort();
    emulator().requests.clear();
    const options = live();
    const run = await runProgram(
      domainProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "adopt" } } }),
      options,
    );
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ verified: true, spfStatus: "OK" });

    const spf = run.get(CLAIMED, "mail-spf");
    expect(spf.id).toBe(theirs.id);
    expect(spf.state).toMatchObject({ ownership: "adopted", recordId: theirs.id });
    // DKIM, return path and two MX records made (in batches): no create for SPF.
    expect(madeSince(before)).toEqual(["CNAME", "MX", "MX", "TXT"]);
    expect(txtAt(name)).toEqual([SERVICE_SPF]);

    const destroyed = await destroyRun(run, options);
    expect(destroyed.errors).toEqual([]);
    expect(recordsAt(name)).toEqual([expect.objectContaining({ id: theirs.id, comment: "set up by hand" })]);
  });
});

describe("overwrite", () => {
  it("leaves one record with the service's content, verified, and restores the user's on destroy", async () => {
    const name = freshName();
    const theirs = await userRecord({
      name: `psrp.${name}`,
      type: "CNAME",
      content: "bounces.elsewhere.example.net",
      ttl: 7200,
      comment: "old bounce host",
    });
    const options = live();
    const run = await runProgram(
      domainProgram(name, { cloudflare: { zoneId, existingRecords: { returnPath: "overwrite" } } }),
      options,
    );
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ verified: true, returnPathStatus: "OK" });
    const now = recordsAt(`psrp.${name}`);
    expect(now).toEqual([
      expect.objectContaining({
        id: theirs.id,
        type: "CNAME",
        content: "rp.postal.example.com",
        comment: "pulumi email-delivery/test: email return path",
      }),
    ]);

    const destroyed = await destroyRun(run, options);
    expect(destroyed.errors).toEqual([]);
    expect(recordsAt(`psrp.${name}`)).toEqual([
      expect.objectContaining({
        id: theirs.id,
        content: "bounces.elsewhere.example.net",
        ttl: 7200,
        comment: "old bounce host",
      }),
    ]);
  });
});

describe("SPF merge", () => {
  it("adds the service's include to the user's record, passes the SPF check through DNS, and takes out only that on destroy", async () => {
    const name = freshName();
    const theirs = await userRecord({ name, type: "TXT", content: GOOGLE_SPF, comment: "office mail" });
    const options = live();
    const run = await runProgram(
      domainProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } }),
      options,
    );
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ verified: true, spfStatus: "OK" });
    expect(txtAt(name)).toEqual(["v=spf1 include:_spf.google.com include:spf.postal.example.com ~all"]);
    expect(run.get(CLAIMED, "mail-spf").state).toMatchObject({
      ownership: "merged",
      added: ["spf.postal.example.com"],
    });
    expect(recordsAt(name).find((r) => r.type === "TXT")).toMatchObject({
      id: theirs.id,
      comment: "office mail",
    });
    // The preview said what would happen.
    expect(run.programLogs.join("\n")).toContain(
      `mail: merges the service's include into the TXT record at ${name}`,
    );

    const destroyed = await destroyRun(run, options);
    expect(destroyed.errors).toEqual([]);
    expect(txtAt(name)).toEqual([GOOGLE_SPF]);
  });

  it("a record naming the include in capitals: written as the service spells it (its check is case-sensitive), given back as it was", async () => {
    const name = freshName();
    const theirs = `v=spf1 mx INCLUDE:${SERVICE_INCLUDE.toUpperCase()} ~all`;
    await userRecord({ name, type: "TXT", content: theirs });
    const options = live();
    const run = await runProgram(
      domainProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } }),
      options,
    );
    expect(run.errors).toEqual([]);
    // Receivers already passed it; now the service's own check does too.
    expect(run.outputs).toMatchObject({ verified: true, spfStatus: "OK" });
    expect(txtAt(name)).toEqual([`v=spf1 mx include:${SERVICE_INCLUDE} ~all`]);
    expect(run.get(CLAIMED, "mail-spf").state).toMatchObject({ ownership: "merged", added: [] });
    expect((await destroyRun(run, options)).errors).toEqual([]);
    expect(txtAt(name)).toEqual([theirs]);
  });

  // Before the service has named its include, the record plus one more include is what can be
  // counted: a record already at the limit fails the preview of a new domain, and `up` makes
  // nothing (it used to warn, then make the domain on the service and stop at the merge). A domain
  // the stack published before only warns (its record may hold the include already): see
  // tests/hardening/dns-ownership-programs.test.ts.
  it("fails the preview of a new domain whose SPF record is already at the 10-lookup limit; `up` makes nothing", async () => {
    const name = freshName();
    const includes = Array.from({ length: 10 }, (_, i) => `include:spf${i}.${name}`);
    for (let i = 0; i < 10; i++)
      await userRecord({ name: `spf${i}.${name}`, type: "TXT", content: "v=spf1 -all" });
    const mine = `v=spf1 ${includes.join(" ")} -all`;
    await userRecord({ name, type: "TXT", content: mine });
    const program = domainProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } });

    const refusal =
      `  - cloudflare.existingRecords.spf ("merge"): cannot merge into the SPF record at ${name}: it already ` +
      "needs 10 DNS lookups, and the " +
      "service's include makes 11, over the limit of 10 that receivers evaluate (RFC 7208 §4.6.4";
    expect(messages(await runProgram(program, preview()))).toContain(refusal);
    const creates = emulator().requests.count("domains/create");
    expect(messages(await runProgram(program, live()))).toContain(refusal);
    expect(emulator().requests.count("domains/create")).toBe(creates);
    expect(txtAt(name)).toEqual([mine]);
  });

  it("refuses a record already over the limit at preview, counting through its includes", async () => {
    const name = freshName();
    // 3 includes of 3 lookups each: 12, and nothing of the service's yet. Every a and mx finds an
    // address: three lookups that find nothing would be a permerror first (RFC 7208 §4.6.4).
    await publishAddresses(emulator(), `mx.${name}`);
    for (let i = 0; i < 3; i++) {
      await userRecord({
        name: `nested${i}.${name}`,
        type: "TXT",
        content: `v=spf1 a mx include:leaf.${name} -all`,
      });
      await publishAddresses(emulator(), `nested${i}.${name}`);
      await userRecord({ name: `nested${i}.${name}`, type: "MX", content: `mx.${name}`, priority: 10 });
    }
    await userRecord({ name: `leaf.${name}`, type: "TXT", content: "v=spf1 -all" });
    await userRecord({
      name,
      type: "TXT",
      content: `v=spf1 include:nested0.${name} include:nested1.${name} include:nested2.${name} ~all`,
    });
    const run = await runProgram(
      domainProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } }),
      preview(),
    );
    expect(messages(run)).toContain(
      `cannot merge into the SPF record at ${name}: SPF needs at least 12 DNS lookups`,
    );
    expect(messages(run)).toContain(`include:nested0.${name} 4`);
  });

  it("refuses at up, before writing, a merge that the service's own include takes over the limit", async () => {
    const name = freshName();
    // The user's record needs 9 lookups (fine at preview: 9 + 1); the service's include resolves
    // to a record of 2 more, known only once the service has named it: 9 + 1 + 2 = 12.
    // Every a and mx finds an address (three lookups that find nothing would be a permerror first).
    await publishAddresses(emulator(), `mx.${name}`);
    for (let i = 0; i < 3; i++) {
      await userRecord({ name: `n${i}.${name}`, type: "TXT", content: "v=spf1 a mx -all" });
      await publishAddresses(emulator(), `n${i}.${name}`);
      await userRecord({ name: `n${i}.${name}`, type: "MX", content: `mx.${name}`, priority: 10 });
    }
    const mine = `v=spf1 include:n0.${name} include:n1.${name} include:n2.${name} ~all`;
    await userRecord({ name, type: "TXT", content: mine });
    await cloudflare("PATCH", `/${serviceSpfId}`, { content: quoteTxt("v=spf1 a mx -all") });
    const serviceHosts = [
      ...(await publishAddresses(emulator(), SERVICE_INCLUDE)),
      String(
        (await userRecord({ name: SERVICE_INCLUDE, type: "MX", content: `mx.${name}`, priority: 10 })).id,
      ),
    ];
    try {
      const run = await runProgram(
        domainProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } }),
        live(),
      );
      expect(messages(run)).toMatch(
        new RegExp(
          `SPF record ${name.replace(/\./g, "\\.")}: merged, it would be ".+": SPF needs 12 DNS lookups, over the limit of 10`,
        ),
      );
      expect(messages(run)).toContain("Nothing was changed in the zone.");
      expect(txtAt(name)).toEqual([mine]);
    } finally {
      await cloudflare("PATCH", `/${serviceSpfId}`, { content: quoteTxt("v=spf1 ip4:192.0.2.0/24 ~all") });
      for (const id of serviceHosts) await cloudflare("DELETE", `/${id}`);
    }
  });

  it("with emailDelivery:spfInclude, the preview counts the service's include whole: such a merge fails there, and `up` makes nothing", async () => {
    const name = freshName();
    await publishAddresses(emulator(), `mx.${name}`);
    for (let i = 0; i < 3; i++) {
      await userRecord({ name: `n${i}.${name}`, type: "TXT", content: "v=spf1 a mx -all" });
      await publishAddresses(emulator(), `n${i}.${name}`);
      await userRecord({ name: `n${i}.${name}`, type: "MX", content: `mx.${name}`, priority: 10 });
    }
    const mine = `v=spf1 include:n0.${name} include:n1.${name} include:n2.${name} ~all`;
    await userRecord({ name, type: "TXT", content: mine });
    await cloudflare("PATCH", `/${serviceSpfId}`, { content: quoteTxt("v=spf1 a mx -all") });
    const serviceHosts = [
      ...(await publishAddresses(emulator(), SERVICE_INCLUDE)),
      String(
        (await userRecord({ name: SERVICE_INCLUDE, type: "MX", content: `mx.${name}`, priority: 10 })).id,
      ),
    ];
    try {
      const program = domainProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } });
      const config = { "emailDelivery:spfInclude": SERVICE_INCLUDE };
      const refusal = `cannot merge into the SPF record at ${name}: SPF needs 12 DNS lookups, over the limit of 10`;
      expect(messages(await runProgram(program, { ...preview(), config }))).toContain(refusal);
      const creates = emulator().requests.count("domains/create");
      expect(messages(await runProgram(program, { ...live(), config }))).toContain(refusal);
      expect(emulator().requests.count("domains/create")).toBe(creates);
      expect(txtAt(name)).toEqual([mine]);
    } finally {
      await cloudflare("PATCH", `/${serviceSpfId}`, { content: quoteTxt("v=spf1 ip4:192.0.2.0/24 ~all") });
      for (const id of serviceHosts) await cloudflare("DELETE", `/${id}`);
    }
  });

  it("a stack config emailDelivery:spfInclude that is no domain fails the preview, naming it", async () => {
    const run = await runProgram(
      domainProgram(freshName(), { cloudflare: { zoneId, existingRecords: { spf: "merge" } } }),
      { ...preview(), config: { "emailDelivery:spfInclude": "include:spf.postal.example.com" } },
    );
    expect(messages(run)).toContain(
      'stack config emailDelivery:spfInclude must be your installation\'s SPF include, a domain name such as "spf.postal.example.com"',
    );
  });

  it("says at up that pyspf-based receivers reject the merged record, where RFC 7208 ignores a redirect= beside all", async () => {
    const name = freshName();
    for (let i = 0; i < 9; i++)
      await userRecord({ name: `n${i}.${name}`, type: "TXT", content: "v=spf1 -all" });
    await userRecord({ name: `r.${name}`, type: "TXT", content: "v=spf1 -all" });
    const includes = Array.from({ length: 9 }, (_, i) => `include:n${i}.${name}`).join(" ");
    await userRecord({ name, type: "TXT", content: `v=spf1 ${includes} -all redirect=r.${name}` });
    const run = await runProgram(
      domainProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } }),
      live(),
    );
    expect(run.errors).toEqual([]);
    // 10 lookups by the RFC, merged; pyspf counts the redirect too.
    expect(run.providerLogs.join("\n")).toContain(
      `pyspf counts redirect=r.${name} beside all (RFC 7208 §6.1 ignores it): 11 lookups, so receivers using it return permerror.`,
    );
  });

  it("refuses two SPF records whatever the policy", async () => {
    const name = freshName();
    await userRecord({ name, type: "TXT", content: GOOGLE_SPF });
    await userRecord({ name, type: "TXT", content: "v=spf1 include:spf.protection.outlook.com -all" });
    const run = await runProgram(
      domainProgram(name, { cloudflare: { zoneId, existingRecords: { spf: "merge" } } }),
      preview(),
    );
    expect(messages(run)).toContain(`the zone already has 2 SPF records at ${name}`);
    expect(messages(run)).toContain("permerror");
  });
});

describe("a sending-only domain (mx: false)", () => {
  it("publishes no MX record beside the user's, and verifies without the MX check", async () => {
    const name = freshName();
    await userRecord({ name, type: "MX", content: "aspmx.l.google.com", priority: 1 });
    const run = await runProgram(domainProgram(name, { mx: false }), live());
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      verified: true,
      spfStatus: "OK",
      returnPathStatus: "OK",
      mxStatus: "Missing",
    });
    expect(
      run
        .ofType(CLAIMED_RECORD_TYPE)
        .map((r) => r.name)
        .sort(),
    ).toEqual(["mail-dkim", "mail-return-path", "mail-spf"]);
    expect(run.get("email-delivery:DomainVerification", "mail-verification").inputs.checks).toEqual([
      "spf",
      "dkim",
      "returnPath",
    ]);
    expect(
      recordsAt(name)
        .filter((r) => r.type === "MX")
        .map((r) => r.content),
    ).toEqual(["aspmx.l.google.com"]);
  });

  it("refuses a verification that asks for the MX check anyway", async () => {
    const run = await runProgram(
      domainProgram(freshName(), { mx: false, verification: { checks: ["spf", "mx"] } }),
      preview(),
    );
    expect(messages(run)).toContain('verification.checks asks for "mx" but mx is false');
  });

  it("with `existingRecords.mx: \"add\"`, publishes the service's MX beside the user's", async () => {
    const name = freshName();
    await userRecord({ name, type: "MX", content: "aspmx.l.google.com", priority: 1 });
    const options = live();
    const run = await runProgram(
      domainProgram(name, { cloudflare: { zoneId, existingRecords: { mx: "add" } } }),
      options,
    );
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ verified: true, mxStatus: "OK" });
    const mx = recordsAt(name)
      .filter((r) => r.type === "MX")
      .map((r) => r.content);
    expect(mx.sort()).toEqual(["aspmx.l.google.com", "mx1.postal.example.com", "mx2.postal.example.com"]);
    await destroyRun(run, options);
    expect(
      recordsAt(name)
        .filter((r) => r.type === "MX")
        .map((r) => r.content),
    ).toEqual(["aspmx.l.google.com"]);
  });
});

describe("DMARC", () => {
  it("publishes the policy at _dmarc, deletes it on destroy, and nothing waits for it", async () => {
    const name = freshName();
    const options = live();
    const run = await runProgram(
      domainProgram(name, {
        dmarc: { policy: "quarantine", aggregateReports: ["mailto:dmarc@example.com"] },
      }),
      options,
    );
    expect(run.errors).toEqual([]);
    expect(txtAt(`_dmarc.${name}`)).toEqual(["v=DMARC1; p=quarantine; rua=mailto:dmarc@example.com"]);
    const verification = run.get("email-delivery:DomainVerification", "mail-verification");
    expect(run.dependsOn(verification, run.get(CLAIMED_RECORD_TYPE, "mail-dmarc"))).toBe(false);
    await destroyRun(run, options);
    expect(recordsAt(`_dmarc.${name}`)).toEqual([]);
  });

  it("refuses bad inputs at preview, naming the property, before anything is registered", async () => {
    const run = await runProgram(
      domainProgram(freshName(), { dmarc: { policy: "reject", aggregateReports: ["dmarc@example.com"] } }),
      preview(),
    );
    expect(messages(run)).toContain("dmarc.aggregateReports[0]");
    expect(messages(run)).toContain("mailto:");
    expect(run.ofType(SERVICE_DOMAIN)).toEqual([]);
  });

  it("is subject to the same policy for a record already at _dmarc", async () => {
    const name = freshName();
    await userRecord({ name: `_dmarc.${name}`, type: "TXT", content: "v=DMARC1; p=none" });
    const run = await runProgram(domainProgram(name, { dmarc: { policy: "reject" } }), preview());
    expect(messages(run)).toContain(`a DMARC record at _dmarc.${name} that this stack did not make`);
  });
});

describe("ownership marks", () => {
  it("a second run finds its own records and changes nothing; another stack's are someone else's", async () => {
    const name = freshName();
    const first = await runProgram(domainProgram(name), live());
    expect(first.errors).toEqual([]);
    const again = await runProgram(domainProgram(name), preview());
    expect(again.errors).toEqual([]);
    const otherStack = await runProgram(domainProgram(name), { ...preview(), stack: "production" });
    expect(messages(otherStack)).toContain("made by stack email-delivery/test");
  });
});
