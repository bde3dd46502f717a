import type { DmarcArgs } from "../../provider/dns";
import { emailDeliveryPolicies, POLICY_NAMES } from "../../provider/policy";
import { domainSettings } from "../../provider/resources/domain-settings";
import { TYPE_TOKENS } from "../../provider/resources/type-tokens";
import { UNKNOWN_MARKER } from "../../testing";
import { AnalyzedResource, Analysis, analyzeResource, analyzeStack, urnOf } from "../support/policy-analysis";

/**
 * Each rule over hand-built resources, through `@pulumi/policy`'s own Analyze and AnalyzeStack
 * handlers: a resource that passes and one that violates, with what the engine would print.
 */

const policies = emailDeliveryPolicies();
const ZONE = "023e105f4ecef8ad9ca31a8372d0c353";
const NAME = "mail.example.com";

function domain(name: string, args: Partial<Parameters<typeof domainSettings>[0]> = {}): AnalyzedResource {
  return {
    type: TYPE_TOKENS.Domain,
    name,
    props: { ...domainSettings({ name: NAME, cloudflare: { zoneId: ZONE }, ...args }) },
  };
}

function dnsRecord(name: string, props: Record<string, unknown>, parent?: string): AnalyzedResource {
  return { type: TYPE_TOKENS.DnsRecord, name, parent, props: { zoneId: ZONE, ttl: 300, ...props } };
}

/** The violations of one policy, as `[level, message]`. */
function of(analysis: Analysis, policy: string): [string, string][] {
  return analysis.diagnostics.filter((d) => d.policy === policy).map((d) => [d.level, d.message]);
}

function skipped(analysis: Analysis, policy: string): string[] {
  return analysis.notApplicable.filter((n) => n.policy === policy).map((n) => n.reason);
}

const DMARC_OK: DmarcArgs = {
  policy: "reject",
  subdomainPolicy: "reject",
  aggregateReports: ["mailto:dmarc@example.com"],
};

describe("the pack's policies", () => {
  it("has every rule the package documents, each named once", () => {
    expect(new Set(POLICY_NAMES).size).toBe(POLICY_NAMES.length);
    expect(policies.map((p) => [p.name, p.enforcementLevel])).toEqual([
      ["email-dmarc-published", "advisory"],
      ["email-dmarc-enforced", "mandatory"],
      ["email-dmarc-subdomain-policy", "advisory"],
      ["email-dmarc-aggregate-reports", "advisory"],
      ["email-dmarc-alignment", "advisory"],
      ["email-spf-record", "mandatory"],
      ["email-spf-single-record", "mandatory"],
      ["email-dkim-key", "advisory"],
      ["email-mx-single-provider", "mandatory"],
      ["email-verification", "advisory"],
      ["email-route-mode", "advisory"],
      ["email-dns-ttl", "advisory"],
    ]);
  });

  it("a domain whose settings meet every rule: no violation at all", async () => {
    const good = domain("primary", { dmarc: DMARC_OK });
    expect((await analyzeResource(policies, good)).diagnostics).toEqual([]);
    expect((await analyzeStack(policies, [good])).diagnostics).toEqual([]);
  });
});

describe("email-dmarc-published", () => {
  const policy = "email-dmarc-published";

  it("a Domain that declares no DMARC policy: named, with the setting to add", async () => {
    const analysis = await analyzeStack(policies, [domain("primary")]);
    expect(of(analysis, policy)).toEqual([
      [
        "advisory",
        "Every sending domain publishes one DMARC policy.\n" +
          'Domain "primary" (mail.example.com) declares no DMARC policy in this stack, at its name or its organizational domain\'s, so receivers have no instruction for mail ' +
          'that fails SPF and DKIM in its name. Add dmarc: { policy: "none", aggregateReports: ' +
          '["mailto:dmarc@mail.example.com"] } to the Domain, read the reports, then raise the policy to "quarantine" or "reject".',
      ],
    ]);
    expect(analysis.diagnostics[0].urn).toBe(urnOf(TYPE_TOKENS.Domain, "primary"));
  });

  it("passes with dmarc, with a DMARC record declared by hand, and for DNS hosted elsewhere", async () => {
    const handMade = dnsRecord("dmarc", {
      type: "TXT",
      name: `_dmarc.${NAME}`,
      content: '"v=DMARC1; p=reject"',
    });
    for (const resources of [
      [domain("primary", { dmarc: DMARC_OK })],
      [domain("primary"), handMade],
      [{ ...domain("elsewhere", { cloudflare: undefined }) }],
    ]) {
      expect(of(await analyzeStack(policies, resources), policy)).toEqual([]);
    }
  });
});

describe("email-dmarc-enforced", () => {
  const policy = "email-dmarc-enforced";

  it("p=none in production: named, with the setting to change", async () => {
    const analysis = await analyzeResource(
      policies,
      domain("primary", { dmarc: { ...DMARC_OK, policy: "none" } }),
    );
    expect(of(analysis, policy)).toEqual([
      [
        "mandatory",
        expect.stringContaining(
          'Domain "primary" (mail.example.com) publishes DMARC p=none in production stack "production": receivers only ' +
            'report mail that fails DMARC. Set dmarc.policy to "quarantine" or "reject"',
        ),
      ],
    ]);
  });

  it("sp weaker than p in production, and a record written by hand, read with the package's DMARC parser", async () => {
    const weakSubdomains = domain("primary", { dmarc: { ...DMARC_OK, subdomainPolicy: "none" } });
    expect(of(await analyzeResource(policies, weakSubdomains), policy)).toEqual([
      ["mandatory", expect.stringContaining("publishes DMARC sp=none in production stack")],
    ]);
    const handMade = dnsRecord("dmarc", {
      type: "TXT",
      name: `_dmarc.${NAME}`,
      content: '"v=DMARC1; P=None; rua=mailto:a@example.com"',
    });
    expect(of(await analyzeResource(policies, handMade), policy)).toEqual([
      [
        "mandatory",
        expect.stringContaining(
          `DnsRecord "dmarc" (TXT at _dmarc.${NAME}) publishes DMARC p=none in production stack "production"`,
        ),
      ],
    ]);
    expect(of(await analyzeResource(policies, handMade), policy)[0][1]).toContain("Set the record's p= tag");
  });

  it("passes at quarantine or reject; does not apply outside production stacks", async () => {
    const quarantine = domain("primary", {
      dmarc: { ...DMARC_OK, policy: "quarantine", subdomainPolicy: undefined },
    });
    expect(of(await analyzeResource(policies, quarantine), policy)).toEqual([]);
    const none = domain("primary", { dmarc: { policy: "none" } });
    const staging = await analyzeResource(policies, none, "staging");
    expect(of(staging, policy)).toEqual([]);
    expect(skipped(staging, policy)).toEqual([
      'stack "staging" is not production (productionStacks: production, prod)',
    ]);
  });

  it("a Domain's own DMARC record is judged once, through the Domain", async () => {
    const parent = urnOf(TYPE_TOKENS.Domain, "primary");
    const own = dnsRecord(
      "primary-dmarc",
      { type: "TXT", name: `_dmarc.${NAME}`, content: '"v=DMARC1; p=none"' },
      parent,
    );
    expect(of(await analyzeResource(policies, own), policy)).toEqual([]);
  });
});

describe("email-dmarc-subdomain-policy and email-dmarc-aggregate-reports", () => {
  it("without sp and without rua: each named, with the setting", async () => {
    const analysis = await analyzeResource(policies, domain("primary", { dmarc: { policy: "none" } }));
    expect(of(analysis, "email-dmarc-subdomain-policy")).toEqual([
      [
        "advisory",
        expect.stringContaining(
          'Domain "primary" (mail.example.com) does not say the DMARC policy of its subdomains (sp), so receivers apply ' +
            'p=none to them too, whether or not they send mail. Say it: set dmarc.subdomainPolicy (for example "reject"',
        ),
      ],
    ]);
    expect(of(analysis, "email-dmarc-aggregate-reports")).toEqual([
      [
        "advisory",
        expect.stringContaining('Set dmarc.aggregateReports (for example ["mailto:dmarc@mail.example.com"])'),
      ],
    ]);
  });

  it("pass with sp and rua", async () => {
    const analysis = await analyzeResource(policies, domain("primary", { dmarc: DMARC_OK }));
    expect(of(analysis, "email-dmarc-subdomain-policy")).toEqual([]);
    expect(of(analysis, "email-dmarc-aggregate-reports")).toEqual([]);
  });
});

describe("email-spf-record", () => {
  const policy = "email-spf-record";
  const spf = (content: string, extra: Record<string, unknown> = {}) =>
    dnsRecord("apex-spf", { type: "TXT", name: NAME, content, ...extra });

  it.each([
    [
      "v=spf1 include:spf.example.net +all",
      'lets any server send as the domain: "+all". End it with "-all" or "~all".',
    ],
    ["v=spf1 include:spf.example.net all", 'lets any server send as the domain: "all".'],
    ['"v=spf1 include:spf.example.net ?all"', 'says nothing about other senders (?all): "?all".'],
    ["v=spf1 include: spf.example.net -all", 'is not an SPF record receivers can read: "include:"'],
  ])("%s: a violation", async (content, message) => {
    const violations = of(await analyzeResource(policies, spf(content)), policy);
    expect(violations).toEqual([
      ["mandatory", expect.stringContaining(`DnsRecord "apex-spf" (TXT at ${NAME}) ${message}`)],
    ]);
  });

  it("over 10 lookups: the terms counted, with the package's lookup counter", async () => {
    const includes = Array.from({ length: 11 }, (_, i) => `include:s${i}.example.net`).join(" ");
    const [[level, message]] = of(await analyzeResource(policies, spf(`v=spf1 ${includes} -all`)), policy);
    expect(level).toBe("mandatory");
    expect(message).toContain(
      "needs at least 11 DNS lookups (include:s0.example.net, include:s1.example.net",
    );
    expect(message).toContain("over RFC 7208's limit of 10: receivers answer permerror");
  });

  it("passes a record that reads, within 10 lookups, ending in ~all or -all; other TXT records are not SPF", async () => {
    for (const content of [
      "v=spf1 include:spf.example.net ~all",
      '"v=spf1 a mx ip4:192.0.2.0/24 -all"',
      "google-site-verification=x",
    ]) {
      expect(of(await analyzeResource(policies, spf(content)), policy)).toEqual([]);
    }
  });

  it("a Domain's SPF record before the service has answered: not applicable, said why (not 'can't run')", async () => {
    const parent = urnOf(TYPE_TOKENS.Domain, "primary");
    const own = dnsRecord(
      "primary-spf",
      { type: "TXT", name: UNKNOWN_MARKER, content: UNKNOWN_MARKER },
      parent,
    );
    const analysis = await analyzeResource(policies, own);
    expect(analysis.diagnostics).toEqual([]);
    expect(skipped(analysis, policy)).toEqual([
      "the SPF record's content is the service's, known once it has answered (`pulumi up`)",
    ]);
  });

  it("a claimed record merged into the zone's: not applicable, said why", async () => {
    const merged = {
      type: TYPE_TOKENS.ClaimedDnsRecord,
      name: "primary-spf",
      parent: urnOf(TYPE_TOKENS.Domain, "primary"),
      props: {
        zoneId: ZONE,
        purpose: "spf",
        policy: "merge",
        type: "TXT",
        name: NAME,
        content: '"v=spf1 +all"',
        ttl: 300,
      },
    };
    const analysis = await analyzeResource(policies, merged);
    expect(of(analysis, policy)).toEqual([]);
    expect(skipped(analysis, policy)).toEqual([
      "merged into the zone's SPF record at `pulumi up`: the record published is the zone's, which a policy cannot read",
    ]);
  });
});

describe("email-spf-single-record", () => {
  const policy = "email-spf-single-record";
  const handMade = dnsRecord("apex-spf", {
    type: "TXT",
    name: NAME,
    content: "v=spf1 include:_spf.google.com ~all",
  });

  it("a Domain and a record by hand at one name: each named, with how to keep one", async () => {
    const analysis = await analyzeStack(policies, [domain("primary", { dmarc: DMARC_OK }), handMade]);
    expect(of(analysis, policy)).toEqual([
      [
        "mandatory",
        expect.stringContaining(
          `Domain "primary" (${NAME}) publishes an SPF record at ${NAME}, and so does DnsRecord "apex-spf" (TXT at ${NAME}). ` +
            "A name may have one (RFC 7208 §3.2); with two, receivers answer permerror for every message. Keep one: put your " +
            'senders and the service\'s include in one record, and give this Domain cloudflare.existingRecords: { spf: "merge" } ' +
            "with dependsOn on that record",
        ),
      ],
      [
        "mandatory",
        expect.stringContaining(
          `DnsRecord "apex-spf" (TXT at ${NAME}) publishes an SPF record at ${NAME}, and so does Domain "primary"`,
        ),
      ],
    ]);
  });

  it("passes when the Domain merges into that record after it is made, and at other names", async () => {
    const merging = {
      ...domain("primary", { cloudflare: { zoneId: ZONE, existingRecords: { spf: "merge" } } }),
      dependencies: [urnOf(TYPE_TOKENS.DnsRecord, "apex-spf")],
    };
    expect(of(await analyzeStack(policies, [merging, handMade]), policy)).toEqual([]);
    // Merge without dependsOn: the Domain's record may be made first, and the zone holds two.
    const unordered = domain("primary", { cloudflare: { zoneId: ZONE, existingRecords: { spf: "merge" } } });
    expect(of(await analyzeStack(policies, [unordered, handMade]), policy)).toHaveLength(2);
    const elsewhere = dnsRecord("other", { type: "TXT", name: `news.${NAME}`, content: "v=spf1 -all" });
    expect(of(await analyzeStack(policies, [domain("primary"), elsewhere]), policy)).toEqual([]);
  });
});

describe("email-mx-single-provider", () => {
  const policy = "email-mx-single-provider";
  const google = dnsRecord("google-mx", { type: "MX", name: NAME, content: "smtp.google.com", priority: 1 });

  it("a receiving Domain beside another provider's MX in the stack: named, with the three ways out", async () => {
    const analysis = await analyzeStack(policies, [domain("primary"), google]);
    expect(of(analysis, policy)).toEqual([
      [
        "mandatory",
        expect.stringContaining(
          `Domain "primary" (${NAME}) publishes the service's MX records at ${NAME}, and the stack declares ` +
            `DnsRecord "google-mx" (MX at ${NAME}) there too: inbound mail would be split between two providers. ` +
            'Set mx: false on the Domain for a sending-only domain, remove the other records, or say that both are meant with cloudflare.existingRecords: { mx: "add" }.',
        ),
      ],
    ]);
  });

  it("passes when declared (add), sending-only (mx: false), or with only the Domain's own MX records", async () => {
    const declared = domain("primary", { cloudflare: { zoneId: ZONE, existingRecords: { mx: "add" } } });
    expect(of(await analyzeStack(policies, [declared, google]), policy)).toEqual([]);
    expect(of(await analyzeStack(policies, [domain("primary", { mx: false }), google]), policy)).toEqual([]);
    const parent = urnOf(TYPE_TOKENS.Domain, "primary");
    const own = dnsRecord(
      "primary-mx-0",
      { type: "MX", name: NAME, content: "mx.service.example", priority: 10 },
      parent,
    );
    expect(of(await analyzeStack(policies, [{ ...domain("primary"), urn: parent }, own]), policy)).toEqual(
      [],
    );
  });
});

describe("email-verification", () => {
  const policy = "email-verification";
  const verification = (props: Record<string, unknown>) => ({
    type: TYPE_TOKENS.DomainVerification,
    name: "primary-verification",
    parent: urnOf(TYPE_TOKENS.Domain, "primary"),
    props: { domainId: UNKNOWN_MARKER, ...props },
  });

  it("verification turned off, or a timeout under the floor, in production: named, with the setting", async () => {
    expect(of(await analyzeResource(policies, domain("primary", { verification: false })), policy)).toEqual([
      [
        "advisory",
        expect.stringContaining(
          'Domain "primary" (mail.example.com) turns verification off (verification: false) in production stack "production"',
        ),
      ],
    ]);
    expect(of(await analyzeResource(policies, verification({ timeoutSeconds: 60 })), policy)).toEqual([
      [
        "advisory",
        expect.stringContaining(
          'DomainVerification "primary-verification" gives up after 60s (timeoutSeconds) in production stack "production", ' +
            "under the floor of 300s: DNS that takes longer fails the update. Set verification.timeoutSeconds to 300 or more.",
        ),
      ],
    ]);
  });

  it("passes with the default timeout (600 s) or a longer one; does not apply outside production", async () => {
    expect(of(await analyzeResource(policies, verification({})), policy)).toEqual([]);
    expect(of(await analyzeResource(policies, verification({ timeoutSeconds: 1200 })), policy)).toEqual([]);
    const staging = await analyzeResource(policies, domain("primary", { verification: false }), "staging");
    expect(staging.diagnostics).toEqual([]);
    expect(skipped(staging, policy)).toHaveLength(1);
  });
});

describe("email-route-mode", () => {
  const policy = "email-route-mode";
  const route = (mode: unknown) => ({
    type: TYPE_TOKENS.Route,
    name: "catch-all",
    props: { name: "*", domainId: UNKNOWN_MARKER, endpointId: 2, mode },
  });

  it.each([
    ["Hold", "the service keeps it and delivers it to no endpoint"],
    ["Bounce", "the service bounces it to the sender"],
    ["Reject", "the service refuses it when it arrives"],
  ])("%s in production: flagged, with what happens to the mail", async (mode, what) => {
    expect(of(await analyzeResource(policies, route(mode)), policy)).toEqual([
      [
        "advisory",
        expect.stringContaining(
          `Route "catch-all" (*) sends its mail to ${mode} in production stack "production": ${what}.`,
        ),
      ],
    ]);
  });

  it("passes Endpoint (and the default); not applicable in staging or while the mode is unknown", async () => {
    expect(of(await analyzeResource(policies, route("Endpoint")), policy)).toEqual([]);
    expect(of(await analyzeResource(policies, route(undefined)), policy)).toEqual([]);
    expect(skipped(await analyzeResource(policies, route("Hold"), "staging"), policy)).toHaveLength(1);
    expect(skipped(await analyzeResource(policies, route(UNKNOWN_MARKER)), policy)).toEqual([
      "the route's mode is not known until `pulumi up`",
    ]);
  });
});

describe("email-dns-ttl", () => {
  const policy = "email-dns-ttl";

  it("a Domain's TTL and a hand-made MX record's outside the range: named, with the setting", async () => {
    const short = domain("primary", { cloudflare: { zoneId: ZONE, ttl: 60 } });
    expect(of(await analyzeResource(policies, short), policy)).toEqual([
      [
        "advisory",
        expect.stringContaining(
          'Domain "primary" (mail.example.com) has a TTL of 60s (cloudflare.ttl), outside 300 to 14400s: resolvers ask for ' +
            "it again at nearly every message. Set cloudflare.ttl within that range.",
        ),
      ],
    ]);
    const long = dnsRecord("google-mx", { type: "MX", name: NAME, content: "smtp.google.com", ttl: 86400 });
    expect(of(await analyzeResource(policies, long), policy)).toEqual([
      [
        "advisory",
        expect.stringContaining(`DnsRecord "google-mx" (MX at ${NAME}) has a TTL of 86400s (ttl)`),
      ],
    ]);
  });

  it("passes automatic (1), the default and records that are not mail's", async () => {
    expect(
      of(
        await analyzeResource(policies, domain("primary", { cloudflare: { zoneId: ZONE, ttl: 1 } })),
        policy,
      ),
    ).toEqual([]);
    expect(of(await analyzeResource(policies, domain("primary")), policy)).toEqual([]);
    const website = dnsRecord("www", { type: "A", name: `www.${NAME}`, content: "192.0.2.1", ttl: 60 });
    expect(of(await analyzeResource(policies, website), policy)).toEqual([]);
  });
});

describe("emailDeliveryPolicies options", () => {
  it("productionStacks: the pack's default for every production rule, patterns included", async () => {
    const custom = emailDeliveryPolicies({ productionStacks: ["prod-*"] });
    const route = { type: TYPE_TOKENS.Route, name: "r", props: { name: "*", mode: "Hold" } };
    expect(of(await analyzeResource(custom, route, "prod-eu"), "email-route-mode")).toHaveLength(1);
    expect(of(await analyzeResource(custom, route, "production"), "email-route-mode")).toEqual([]);
    const schema = custom.find((p) => p.name === "email-route-mode")!.configSchema!;
    expect(schema.properties.productionStacks).toMatchObject({ default: ["prod-*"] });
    // Still a rule of one type: @pulumi/policy skips other resources, and says so.
    const domain = { type: TYPE_TOKENS.Domain, name: "d", props: { name: NAME } };
    expect((await analyzeResource(custom, domain, "prod-eu")).notApplicable).toContainEqual(
      expect.objectContaining({
        policy: "email-route-mode",
        reason: `Policy only applies to resources of type '${TYPE_TOKENS.Route}'`,
      }),
    );
  });

  it("enforcementLevels: another level per policy", async () => {
    const strict = emailDeliveryPolicies({ enforcementLevels: { "email-route-mode": "mandatory" } });
    const route = { type: TYPE_TOKENS.Route, name: "r", props: { name: "*", mode: "Hold" } };
    expect(of(await analyzeResource(strict, route), "email-route-mode")).toEqual([
      ["mandatory", expect.any(String)],
    ]);
  });
});
