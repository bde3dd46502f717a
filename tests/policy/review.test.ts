import { promises as fs } from "node:fs";
import * as path from "node:path";
import { emailDeliveryPolicies } from "../../provider/policy";
import { domainSettings } from "../../provider/resources/domain-settings";
import { TYPE_TOKENS } from "../../provider/resources/type-tokens";
import { UNKNOWN_MARKER } from "../../testing";
import { AnalyzedResource, Analysis, analyzeResource, analyzeStack, urnOf } from "../support/policy-analysis";

/**
 * Findings of an adversarial review of the policy pack, each reproduced here: every test failed on
 * the first version of the rules.
 */

const policies = emailDeliveryPolicies();
const ZONE = "023e105f4ecef8ad9ca31a8372d0c353";
const APEX = "example.com";

function domain(
  name: string,
  args: Partial<Parameters<typeof domainSettings>[0]> = {},
  domainName = APEX,
): AnalyzedResource {
  return {
    type: TYPE_TOKENS.Domain,
    name,
    urn: urnOf(TYPE_TOKENS.Domain, name),
    props: { ...domainSettings({ name: domainName, cloudflare: { zoneId: ZONE }, ...args }) },
  };
}

function dnsRecord(name: string, props: Record<string, unknown>, parent?: string): AnalyzedResource {
  return { type: TYPE_TOKENS.DnsRecord, name, parent, props: { zoneId: ZONE, ttl: 300, ...props } };
}

/** The violations of one policy, as messages. */
function of(analysis: Analysis, policy: string): string[] {
  return analysis.diagnostics.filter((d) => d.policy === policy).map((d) => d.message);
}

describe("review of the policy pack", () => {
  // high: mandatory false positive — an adopted Domain that exists publishes no records, yet it counts as publishing SPF and MX
  it("an adopted Domain whose SPF and MX records the program declares by hand: no SPF or MX violation", async () => {
    // adopt: true and the domain exists on the service: publishRecords declares nothing for it
    // ("assumed to exist"), so the program keeps the records it already had, by hand.
    const adopted = domain("primary", {
      adopt: true,
      dmarc: { policy: "reject", subdomainPolicy: "reject" },
    });
    const analysis = await analyzeStack(policies, [
      adopted,
      dnsRecord("apex-spf", { type: "TXT", name: APEX, content: '"v=spf1 include:spf.mail.example -all"' }),
      dnsRecord("apex-mx", { type: "MX", name: APEX, content: "mx.mail.example", priority: 10 }),
    ]);
    expect(of(analysis, "email-spf-single-record")).toEqual([]);
    expect(of(analysis, "email-mx-single-provider")).toEqual([]);
  });

  // medium: mandatory false negative — a user's own record given { parent: domain } is taken for the Domain's and skipped
  it("a second SPF record the user parents under the Domain is still one SPF record too many", async () => {
    const primary = domain("primary");
    const analysis = await analyzeStack(policies, [
      primary,
      // The Domain's own SPF record (its resource name is <domain>-spf)…
      dnsRecord(
        "primary-spf",
        { type: "TXT", name: APEX, content: '"v=spf1 a mx include:spf.mail.example ~all"' },
        primary.urn,
      ),
      // …and the user's, grouped under the Domain with { parent: domain }.
      dnsRecord(
        "legacy-spf",
        { type: "TXT", name: APEX, content: '"v=spf1 include:_spf.google.com -all"' },
        primary.urn,
      ),
    ]);
    expect(of(analysis, "email-spf-single-record").join("\n")).toContain('DnsRecord "legacy-spf"');
  });

  // medium: advisory false positive — receivers fall back to the organizational domain's DMARC record (RFC 7489 §6.6.3)
  it("a subdomain Domain under a DMARC record the stack publishes at the organizational domain: not 'publishes no DMARC'", async () => {
    const analysis = await analyzeStack(policies, [
      domain("mail", {}, `mail.${APEX}`),
      dnsRecord("org-dmarc", {
        type: "TXT",
        name: `_dmarc.${APEX}`,
        content: '"v=DMARC1; p=reject; sp=reject; rua=mailto:dmarc@example.com"',
      }),
    ]);
    expect(of(analysis, "email-dmarc-published")).toEqual([]);
  });

  // medium: no rule sees two DMARC records at one name (a Domain's dmarc and one by hand): receivers then apply no DMARC policy at all (RFC 7489 §6.6.3)
  it("a Domain with dmarc and a DMARC record by hand at the same _dmarc name: the second record is reported", async () => {
    const analysis = await analyzeStack(policies, [
      domain("primary", {
        dmarc: {
          policy: "reject",
          subdomainPolicy: "reject",
          aggregateReports: ["mailto:dmarc@example.com"],
        },
      }),
      dnsRecord("hand-dmarc", {
        type: "TXT",
        name: `_dmarc.${APEX}`,
        content: '"v=DMARC1; p=reject; sp=reject; rua=mailto:dmarc@example.com"',
      }),
    ]);
    expect(analysis.diagnostics.map((d) => d.message).join("\n")).toContain('DnsRecord "hand-dmarc"');
  });

  // medium: mandatory rule misses what it promises — no `all` and no redirect= is "?all" by default (RFC 7208 §4.7)
  it("an SPF record with neither an all nor a redirect= ends in neither -all nor ~all: reported", async () => {
    const analysis = await analyzeResource(
      policies,
      dnsRecord("apex-spf", { type: "TXT", name: APEX, content: '"v=spf1 include:_spf.google.com"' }),
    );
    expect(of(analysis, "email-spf-record")).toEqual([expect.stringContaining('DnsRecord "apex-spf"')]);
  });

  // low: advisory noise — without sp, subdomains inherit p; at p=reject that already enforces, and the message suggests sp="reject", a change that changes nothing
  it("p=reject without sp: subdomains already inherit reject, so email-dmarc-subdomain-policy says nothing", async () => {
    const analysis = await analyzeResource(
      policies,
      domain("primary", { dmarc: { policy: "reject", aggregateReports: ["mailto:dmarc@example.com"] } }),
    );
    expect(of(analysis, "email-dmarc-subdomain-policy")).toEqual([]);
  });

  // low: advisory false claim — a Domain whose dmarc settings are unknown is said to publish none
  it("a Domain whose dmarc settings arrive unknown is not said to publish no DMARC policy", async () => {
    const unknownDmarc = domain("primary");
    unknownDmarc.props = { ...unknownDmarc.props, dmarc: UNKNOWN_MARKER };
    const analysis = await analyzeStack(policies, [unknownDmarc]);
    expect(of(analysis, "email-dmarc-published")).toEqual([]);
  });

  // low: output grows with the square of the records at one name — each message lists every other publisher
  it("300 SPF records at one name: each message stays short (the others counted, not all listed)", async () => {
    const records = Array.from({ length: 300 }, (_, i) =>
      dnsRecord(`tenant-${i}-spf`, {
        type: "TXT",
        name: APEX,
        content: `"v=spf1 include:t${i}.example -all"`,
      }),
    );
    const messages = of(await analyzeStack(policies, records), "email-spf-single-record");
    expect(messages).toHaveLength(300);
    expect(Math.max(...messages.map((message) => message.length))).toBeLessThan(2000);
  });

  // low: the copied pack (`cp -r …/policy-pack my-pack && npm install`) resolves @pulumi/pulumi to a version that needs Node 22, though the package supports Node 20.19
  it("the pack's @pulumi/pulumi range does not admit versions needing Node 22 (3.249.0 and later need node >=22)", async () => {
    const pack = JSON.parse(
      await fs.readFile(path.resolve(__dirname, "../../policy-pack/package.json"), "utf8"),
    ) as { dependencies: Record<string, string> };
    // A caret range, or a floor without a ceiling, lets `npm install` in the copy take the newest 3.x.
    const range = pack.dependencies["@pulumi/pulumi"];
    const admitsNewest = /^\^3\./.test(range) || (range.includes(">=") && !range.includes("<"));
    expect({ range, admitsNewest }).toEqual({ range, admitsNewest: false });
  });
});
