import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import { useEmulator } from "../support/emulator";
import { DNS_RECORD_TYPE, runProgram, STACK_TYPE, UNKNOWN_MARKER } from "../../testing";

/**
 * The test kit's `runProgram` itself, with a small dynamic provider defined here (plain objects and
 * functions only: the closure serializer drops class-field initializers) and a real
 * `cloudflare.DnsRecord` class.
 */

interface ApiRecord {
  purpose: string;
  type: string;
  name: string;
  value: string;
  priority?: number;
}

/** Creates a domain in the emulator's email API with the settings `configure` received. */
function testDomainProvider(): pulumi.dynamic.ResourceProvider {
  // Filled by configure() in the deserialized copy; never captured with values.
  const settings: { baseUrl?: string; apiKey?: string } = {};
  return {
    async configure(req) {
      settings.baseUrl = req.config.get("emailDelivery:baseUrl");
      settings.apiKey = req.config.get("emailDelivery:apiKey");
    },
    async check(_olds, news) {
      const failures =
        typeof news.name === "string" && news.name.includes(".")
          ? []
          : [{ property: "name", reason: "must be a domain name (contain a dot)" }];
      return { inputs: { name: news.name }, failures };
    },
    async create(inputs) {
      const response = await fetch(`${settings.baseUrl}/api/v1/domains/create`, {
        method: "POST",
        headers: { "X-Server-API-Key": settings.apiKey ?? "", "Content-Type": "application/json" },
        body: JSON.stringify({ name: inputs.name }),
      });
      const body = (await response.json()) as {
        status: string;
        data: { id: number; message?: string; dns_records: ApiRecord[] };
      };
      if (body.status !== "success") throw new Error(`domains/create: ${body.data.message ?? body.status}`);
      return {
        id: String(body.data.id),
        outs: { name: inputs.name, domainId: body.data.id, records: body.data.dns_records },
      };
    },
  };
}

class TestDomain extends pulumi.dynamic.Resource {
  declare readonly domainId: pulumi.Output<number>;
  declare readonly records: pulumi.Output<ApiRecord[]>;
  constructor(name: string, args: { name: pulumi.Input<string> }, opts?: pulumi.CustomResourceOptions) {
    super(
      testDomainProvider(),
      name,
      { ...args, domainId: undefined, records: undefined },
      opts,
      "test",
      "Domain",
    );
  }
}

/** A domain, a DnsRecord fed by its output (unknown in preview) and one with static args. */
function program(domainName: string, zoneId: string, verifyName = `_verify.${domainName}`) {
  return () => {
    const domain = new TestDomain("main", { name: domainName });
    const spf = domain.records.apply((records) => records.find((r) => r.purpose === "spf")!);
    const spfRecord = new cloudflare.DnsRecord("spf", {
      zoneId,
      name: spf.name,
      type: "TXT",
      content: spf.apply((r) => `"${r.value}"`),
      ttl: 300,
      proxied: false,
    });
    const verification = new cloudflare.DnsRecord("site-verification", {
      zoneId,
      name: verifyName,
      type: "TXT",
      content: '"token=abc"',
      ttl: 120,
      proxied: false,
      comment: `managed by ${pulumi.getStack()}`,
    });
    return {
      domainId: domain.domainId,
      recordCount: domain.records.length,
      spfRecordId: spfRecord.id,
      verificationId: verification.id,
    };
  };
}

describe("live mocks harness", () => {
  const emulator = useEmulator();
  let counter = 0;
  const freshName = () => `harness${++counter}.example.com`;

  it("preview records registrations with unknowns and sends nothing", async () => {
    emulator().requests.clear();
    const name = freshName();
    const zoneId = emulator().cloudflare.zones[0].id;
    const run = await runProgram(program(name, zoneId), { mode: "preview", stack: "staging" });

    expect(run.errors).toEqual([]);
    // Registration order between independent resources is not fixed (serializing a provider is slow).
    expect(run.registrations.map((r) => r.type).sort()).toEqual(
      [STACK_TYPE, "pulumi-nodejs:dynamic/test:Domain", DNS_RECORD_TYPE, DNS_RECORD_TYPE].sort(),
    );
    expect(run.get("test:Domain", "main").inputs).toEqual({ name, domainId: undefined, records: undefined });
    expect(run.get("test:Domain", "main").serializedProvider).toContain("domains/create");
    expect(run.get(DNS_RECORD_TYPE, "spf").inputs).toMatchObject({
      zoneId,
      name: UNKNOWN_MARKER,
      type: "TXT",
      content: UNKNOWN_MARKER,
      ttl: 300,
      proxied: false,
    });
    expect(run.get(DNS_RECORD_TYPE, "site-verification").inputs).toMatchObject({
      zoneId,
      name: `_verify.${name}`,
      content: '"token=abc"',
      ttl: 120,
      comment: "managed by staging",
    });
    expect(run.outputs).toEqual({
      domainId: UNKNOWN_MARKER,
      recordCount: UNKNOWN_MARKER,
      spfRecordId: UNKNOWN_MARKER,
      verificationId: UNKNOWN_MARKER,
    });
    expect(emulator().requests.all()).toEqual([]);
  });

  it("live executes the dynamic provider and writes DnsRecords to the stand-in", async () => {
    const name = freshName();
    const zoneId = emulator().cloudflare.zones[0].id;
    const run = await runProgram(program(name, zoneId), { mode: "live", emulator: emulator() });

    expect(run.errors).toEqual([]);
    const domain = emulator().state.domains.find((d) => d.name === name)!;
    expect(run.outputs.domainId).toBe(domain.id);
    expect(run.outputs.recordCount).toBe(5);

    const stored = emulator().state.cloudflare.records.filter((r) => r.name.endsWith(name));
    expect(stored).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: run.outputs.spfRecordId,
          name,
          type: "TXT",
          content: '"v=spf1 a mx include:spf.postal.example.com ~all"',
          ttl: 300,
          proxied: false,
        }),
        expect.objectContaining({ id: run.outputs.verificationId, comment: "managed by test", ttl: 120 }),
      ]),
    );

    // The record was registered after, and because of, the domain's outputs.
    const domainReg = run.get("test:Domain", "main");
    const spfReg = run.get(DNS_RECORD_TYPE, "spf");
    expect(run.dependsOn(spfReg, domainReg)).toBe(true);
    expect(spfReg.seq).toBeGreaterThan(domainReg.doneSeq!);
    expect(spfReg.parent).toBe(run.registrations[0].urn);
    expect(spfReg.state).toMatchObject({ proxiable: false, createdOn: expect.any(String) });
    // Keys come from configure(), not from the serialized text.
    expect(domainReg.serializedProvider).not.toContain(emulator().emailApi.apiKey);
  });

  it("a failed check fails the registration with its reasons; the rest still runs", async () => {
    const zoneId = emulator().cloudflare.zones[0].id;
    const run = await runProgram(program("nodot", zoneId, "_verify-nodot.example.com"), {
      mode: "live",
      emulator: emulator(),
    });

    const domainReg = run.get("test:Domain", "main");
    expect(domainReg.status).toBe("failed");
    expect(domainReg.error).toContain("name: must be a domain name (contain a dot)");
    // One error for the one cause: not the outputs it left unresolved, nor the dependent's
    // serialization chain, nor the unhandled rejections behind it.
    expect(run.errors).toEqual([
      {
        source: "registration",
        subject: domainReg.type + "::main",
        message: "name: must be a domain name (contain a dot)",
      },
    ]);
    expect(run.outputs).not.toHaveProperty("domainId");
    // The dependent record never reached the engine; the independent one was created.
    expect(run.ofType(DNS_RECORD_TYPE).map((r) => r.name)).toEqual(["site-verification"]);
    expect(run.outputs.verificationId).toEqual(expect.any(String));
  });

  it("an error thrown by create surfaces with its message", async () => {
    const name = freshName();
    const zoneId = emulator().cloudflare.zones[0].id;
    await runProgram(() => ({ id: new TestDomain("first", { name }).id }), {
      mode: "live",
      emulator: emulator(),
    });
    const run = await runProgram(program(name, zoneId), { mode: "live", emulator: emulator() });
    expect(run.get("test:Domain", "main").error).toMatch(/domains\/create: .*already/i);
    expect(run.errors[0]).toMatchObject({ source: "registration" });
  });

  it("connection settings come from the run's config", async () => {
    const run = await runProgram(() => ({ id: new TestDomain("main", { name: freshName() }).id }), {
      mode: "live",
      emulator: emulator(),
      config: { "emailDelivery:apiKey": "WrongKey000000000000000" },
    });
    expect(run.get("test:Domain", "main").error).toMatch(/domains\/create: /);
    expect(run.outputs).toEqual({});
  });

  it("unwraps secret inputs for the provider and records which were secret", async () => {
    const name = freshName();
    const run = await runProgram(() => ({ id: new TestDomain("main", { name: pulumi.secret(name) }).id }), {
      mode: "live",
      emulator: emulator(),
    });
    expect(run.errors).toEqual([]);
    const registration = run.get("test:Domain", "main");
    expect(registration.inputs.name).toBe(name);
    expect(registration.secretInputs).toEqual(["name"]);
    expect(emulator().state.domains.some((d) => d.name === name)).toBe(true);
  });

  it("rejects outputs a real provider host could not send (undefined values)", async () => {
    // The host converts outs with Struct.fromJavaScript, which throws on undefined.
    const loose: pulumi.dynamic.ResourceProvider = {
      async create() {
        return { id: "1", outs: { value: undefined } };
      },
    };
    class Loose extends pulumi.dynamic.Resource {}
    const run = await runProgram(() => ({ id: new Loose(loose, "loose", {}).id }), {
      mode: "live",
      emulator: emulator(),
    });
    expect(run.errors[0]).toMatchObject({ source: "registration", message: "Unexpected struct type." });
  });
});
