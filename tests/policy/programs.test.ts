import * as cloudflare from "@pulumi/cloudflare";
import * as pulumi from "@pulumi/pulumi";
import { Domain, DomainArgs, Route } from "../../provider";
import { emailDeliveryPolicies } from "../../provider/policy";
import { domainSettings } from "../../provider/resources/domain-settings";
import { TYPE_TOKENS } from "../../provider/resources/type-tokens";
import { uniqueDomain, useEmulator } from "../support/emulator";
import { Analysis, analyzeRun } from "../support/policy-analysis";
import { documentBlock } from "../support/readme";
import { runProgram } from "../../testing";

/**
 * The policies over real programs: the registrations of the kit's preview (and of an update), each
 * through `@pulumi/policy`'s Analyze handler as it was registered, then the stack through
 * AnalyzeStack, as the engine runs a pack under `pulumi preview --policy-pack`.
 */
describe("policies over a program's preview", () => {
  const emulator = useEmulator();
  const policies = emailDeliveryPolicies();
  const zoneId = () => emulator().cloudflare.zones[0].id;

  function program(name: string, args: Partial<DomainArgs>, extra: (domain: Domain) => void = () => {}) {
    return () => {
      const domain = new Domain("primary", { name, cloudflare: { zoneId: zoneId() }, ...args });
      new Route("support", {
        name: "support",
        domainId: domain.domainId,
        endpointId: emulator().state.endpoints[0].id,
      });
      extra(domain);
      return {};
    };
  }

  it("a program that meets every rule: no violation, and the records the service has not given yet wait", async () => {
    const name = uniqueDomain("good");
    const run = await runProgram(
      program(name, {
        dmarc: { policy: "reject", subdomainPolicy: "reject", aggregateReports: [`mailto:dmarc@${name}`] },
      }),
      { mode: "preview", emulator: emulator(), stack: "production" },
    );
    expect(run.errors).toEqual([]);
    // The Domain records its settings as its inputs: what the policies judged.
    expect(run.get(TYPE_TOKENS.Domain, "primary").inputs).toEqual(
      JSON.parse(
        JSON.stringify(
          domainSettings({
            name,
            cloudflare: { zoneId: zoneId() },
            dmarc: {
              policy: "reject",
              subdomainPolicy: "reject",
              aggregateReports: [`mailto:dmarc@${name}`],
            },
          }),
        ),
      ),
    );
    const analysis = await analyzeRun(policies, run, "production");
    expect(analysis.diagnostics).toEqual([]);
    expect(analysis.notApplicable.filter((n) => n.policy === "email-spf-record")).toEqual([
      {
        policy: "email-spf-record",
        reason: "the SPF record's content is the service's, known once it has answered (`pulumi up`)",
        urn: run.get(TYPE_TOKENS.ClaimedDnsRecord, "primary-spf").urn,
      },
    ]);
  });

  it("a program that breaks the rules: each violation, named, at preview", async () => {
    const name = uniqueDomain("bad");
    const run = await runProgram(
      () => {
        const domain = new Domain("primary", {
          name,
          cloudflare: { zoneId: zoneId(), ttl: 60 },
          verification: false,
        });
        new Route("catch-all", { name: "*", domainId: domain.domainId, endpointId: 1, mode: "Hold" });
        // Another provider's records, declared in the same program: the zone does not hold them yet.
        new cloudflare.DnsRecord("google-spf", {
          zoneId: zoneId(),
          name,
          type: "TXT",
          content: '"v=spf1 include:_spf.google.com +all"',
          ttl: 3600,
        });
        new cloudflare.DnsRecord("google-mx", {
          zoneId: zoneId(),
          name,
          type: "MX",
          content: "smtp.google.com",
          priority: 1,
          ttl: 3600,
        });
        return {};
      },
      { mode: "preview", emulator: emulator(), stack: "production" },
    );
    expect(run.errors).toEqual([]);
    const analysis = await analyzeRun(policies, run, "production");
    const found = analysis.diagnostics.map((d) => [d.policy, d.level, d.urn.split("::").pop()]);
    expect(found.sort()).toEqual(
      [
        ["email-dmarc-published", "advisory", "primary"],
        ["email-dns-ttl", "advisory", "primary"],
        ["email-mx-single-provider", "mandatory", "primary"],
        ["email-route-mode", "advisory", "catch-all"],
        ["email-spf-record", "mandatory", "google-spf"],
        ["email-spf-single-record", "mandatory", "google-spf"],
        ["email-spf-single-record", "mandatory", "primary"],
        ["email-verification", "advisory", "primary"],
      ].sort(),
    );
    const messages = analysis.diagnostics.map((d) => d.message).join("\n");
    expect(messages).toContain(`Domain "primary" (${name}) declares no DMARC policy in this stack`);
    expect(messages).toContain(`DnsRecord "google-spf" (TXT at ${name}) lets any server send as the domain`);
    expect(messages).toContain(`and the stack declares DnsRecord "google-mx" (MX at ${name}) there too`);
    // The same program in a staging stack: the production rules do not apply there.
    const staging = await analyzeRun(policies, run, "staging");
    expect(staging.diagnostics.map((d) => d.policy).sort()).toEqual(
      [
        "email-dmarc-published",
        "email-dns-ttl",
        "email-mx-single-provider",
        "email-spf-record",
        "email-spf-single-record",
        "email-spf-single-record",
      ].sort(),
    );
  });

  it("at `pulumi up` the service's records are known, and the Domain's SPF record is judged (and passes)", async () => {
    const name = uniqueDomain("live");
    const run = await runProgram(
      program(name, {
        dmarc: {
          policy: "quarantine",
          subdomainPolicy: "reject",
          aggregateReports: [`mailto:dmarc@${name}`],
        },
        verification: { timeoutSeconds: 300, pollIntervalSeconds: 1 },
      }),
      { mode: "live", emulator: emulator(), stack: "production" },
    );
    expect(run.errors).toEqual([]);
    const spf = run.get(TYPE_TOKENS.ClaimedDnsRecord, "primary-spf");
    expect(String(spf.inputs.content)).toMatch(/^"v=spf1 /);
    const analysis = await analyzeRun(policies, run, "production");
    expect(analysis.diagnostics).toEqual([]);
    expect(analysis.notApplicable.filter((n) => n.policy === "email-spf-record")).toEqual([]);
  });

  it("docs/policy.md's violations are what the pack says of its program, in the CLI's layout", async () => {
    const zone = zoneId();
    const declare = new Function(
      "Domain",
      "Route",
      "cloudflare",
      "zoneId",
      documentBlock("docs/policy.md", "ts violation.ts"),
    );
    const run = await runProgram(
      () => {
        declare(Domain, Route, cloudflare, zone);
        return {};
      },
      { mode: "preview", emulator: emulator(), stack: "production" },
    );
    expect(run.errors).toEqual([]);
    const shown = documentBlock("docs/policy.md", "text policy-violations").split("\n").slice(2).join("\n");
    expect(cliLayout(await analyzeRun(policies, run, "production"))).toBe(shown);
  });

  it("the Domain's outputs hold its settings too, which stack policies read", () => {
    const registered: Record<string, unknown>[] = [];
    const spy = jest
      .spyOn(
        pulumi.ComponentResource.prototype as unknown as { registerOutputs(o: object): void },
        "registerOutputs",
      )
      .mockImplementation(function (this: unknown, outputs: object) {
        registered.push(outputs as Record<string, unknown>);
      });
    try {
      pulumi.runtime.setMocks({
        newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }),
        call: () => ({}),
      });
      new Domain("plain", { name: "plain.example.com", verification: false, mx: false });
    } finally {
      spy.mockRestore();
    }
    expect(registered[0]).toMatchObject({
      name: "plain.example.com",
      mx: false,
      adopt: false,
      verification: false,
    });
  });
});

/**
 * Violations laid out as the Pulumi CLI prints them under a pack's heading (its display code,
 * pkg/backend/display: sorted by level, mandatory first, then rule and URN; the type and name of
 * the resource; the message indented under it).
 */
function cliLayout(analysis: Analysis): string {
  const rank = { remediate: 0, mandatory: 1, advisory: 2, disabled: 3 };
  const sorted = [...analysis.diagnostics].sort(
    (a, b) => rank[a.level] - rank[b.level] || a.policy.localeCompare(b.policy) || a.urn.localeCompare(b.urn),
  );
  return sorted
    .map((d) => {
      const [qualifiedType, name] = d.urn.split("::").slice(-2);
      const type = qualifiedType.split("$").pop();
      const message = d.message.split("\n").map((line) => `          ${line}`);
      return [`        - [${d.level}]  ${d.policy}  (${type}: ${name})`, ...message].join("\n");
    })
    .join("\n")
    .concat("\n");
}
