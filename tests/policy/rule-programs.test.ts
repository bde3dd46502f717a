import * as cloudflare from "@pulumi/cloudflare";
import { Domain, DomainArgs, Route } from "../../provider";
import { emailDeliveryPolicies, EmailDeliveryPolicyName, POLICY_NAMES } from "../../provider/policy";
import { uniqueDomain, useEmulator } from "../support/emulator";
import { analyzeRun } from "../support/policy-analysis";
import { runProgram } from "../../testing";

/**
 * Every rule over two real programs, previewed with the kit in a stack named "production": one
 * that passes it and one that violates it, differing only in what the rule is about. The rest of
 * each program meets every rule, so the violating one shows that rule's violation alone.
 */

/** What a program declares beside its Domain: a change to the Domain, a route, records by hand. */
interface Case {
  domain?: Partial<DomainArgs>;
  route?: { mode: "Endpoint" | "Hold" };
  records?: (name: string, zoneId: string) => cloudflare.DnsRecordArgs[];
  /** The stack to preview as. @default "production" */
  stack?: string;
}

const GOOD_DMARC = (name: string) => ({
  policy: "reject" as const,
  subdomainPolicy: "reject" as const,
  aggregateReports: [`mailto:dmarc@${name}`],
});

/** A 2048-bit RSA key, as a DKIM record's p=. */
const KEY_2048 =
  "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA3ByVqFMhrQkD2f6hZ32LAB0H2N7WZQ+yVCNbq8MNhlba75j0gaIjJUJhxiildgo0Tz4ppnVym6J0Clq1NS/8gsn0Fk/t2EU94lV6DYjI1QorHRiOnFG3vegqEZjQHVL3AnuchxoJhbVRjtOt9uMmYwohikeYsPyZHiQaom3CQ6R8nnWcIJhj9AFdtbKk2192/Oj/ZfLsGed9/PaKFmandA7yKrhkxGL11JmE5WcfvJJ0GoIr4ZooEzJU+Gi1gCyXiTa8Kjg9DKoMV0hTD9kDudRN6a0izlLqbwrD0IM45YZp55jTYCazUt6o773a59tnS2kCIjvVGyV8js0Qiv/wvQIDAQAB";

const spfRecord = (content: string) => (name: string, zoneId: string) => [
  { zoneId, name, type: "TXT", content: `"${content}"`, ttl: 3600 },
];

/** For each rule: a program that passes it, and one that violates it (with a part of the message). */
const CASES: Record<EmailDeliveryPolicyName, { pass: Case; violate: Case; says: string }> = {
  "email-dmarc-published": {
    pass: {},
    violate: { domain: { dmarc: undefined } },
    says: "declares no DMARC policy in this stack",
  },
  "email-dmarc-enforced": {
    pass: {},
    violate: {
      domain: {
        dmarc: { policy: "none", subdomainPolicy: "none", aggregateReports: ["mailto:d@example.com"] },
      },
    },
    says: "publishes DMARC p=none in production stack",
  },
  "email-dmarc-subdomain-policy": {
    pass: {},
    // Only at p=none (quarantine and reject apply to subdomains already), which production flags
    // too: previewed as staging.
    violate: {
      domain: { dmarc: { policy: "none", aggregateReports: ["mailto:d@example.com"] } },
      stack: "staging",
    },
    says: "does not say the DMARC policy of its subdomains (sp)",
  },
  "email-dmarc-aggregate-reports": {
    pass: {},
    violate: { domain: { dmarc: { policy: "reject", subdomainPolicy: "reject" } } },
    says: "asks for no DMARC aggregate reports (rua)",
  },
  "email-spf-record": {
    // A record by hand at another name (the Domain publishes its own at its name).
    pass: {
      records: (name, zoneId) => spfRecord("v=spf1 include:_spf.example.net -all")(`news.${name}`, zoneId),
    },
    violate: {
      records: (name, zoneId) => spfRecord("v=spf1 include:_spf.example.net +all")(`news.${name}`, zoneId),
    },
    says: 'lets any server send as the domain: "+all"',
  },
  "email-spf-single-record": {
    pass: { records: (name, zoneId) => spfRecord("v=spf1 -all")(`news.${name}`, zoneId) },
    violate: { records: spfRecord("v=spf1 include:_spf.example.net -all") },
    says: "A name may have one (RFC 7208 §3.2)",
  },
  "email-mx-single-provider": {
    pass: {
      domain: { mx: false },
      records: (name, zoneId) => [
        { zoneId, name, type: "MX", content: "smtp.google.com", priority: 1, ttl: 3600 },
      ],
    },
    violate: {
      records: (name, zoneId) => [
        { zoneId, name, type: "MX", content: "smtp.google.com", priority: 1, ttl: 3600 },
      ],
    },
    says: "inbound mail would be split between two providers",
  },
  "email-verification": {
    pass: { domain: { verification: { timeoutSeconds: 300 } } },
    violate: { domain: { verification: { timeoutSeconds: 60 } } },
    says: "gives up after 60s (timeoutSeconds)",
  },
  "email-route-mode": {
    pass: { route: { mode: "Endpoint" } },
    violate: { route: { mode: "Hold" } },
    says: "sends its mail to Hold in production stack",
  },
  "email-dmarc-alignment": {
    pass: { domain: { dmarc: { ...GOOD_DMARC("x.example.com"), spfAlignment: "strict" } } },
    violate: {
      domain: {
        dmarc: { ...GOOD_DMARC("x.example.com"), spfAlignment: "strict" },
        verification: { checks: ["spf", "mx", "returnPath"] },
      },
    },
    says: "passes DMARC p=reject by DKIM alone, and verification.checks leaves dkim out",
  },
  "email-dkim-key": {
    pass: {
      records: (name, zoneId) => spfRecord(`v=DKIM1; k=rsa; p=${KEY_2048}`)(`s1._domainkey.${name}`, zoneId),
    },
    violate: { records: (name, zoneId) => spfRecord("v=DKIM1; k=rsa; p=")(`s1._domainkey.${name}`, zoneId) },
    says: "revokes its key (p= is empty)",
  },
  // The Domain's TTL is set through its zone settings: run by its own test below.
  "email-dns-ttl": { pass: {}, violate: {}, says: "has a TTL of 60s (cloudflare.ttl)" },
};

describe("each rule over a passing and a violating program", () => {
  const emulator = useEmulator();
  const policies = emailDeliveryPolicies();

  async function violations(rule: string, program: Case, ttl?: number) {
    const name = uniqueDomain("rule");
    const zoneId = emulator().cloudflare.zones[0].id;
    const run = await runProgram(
      () => {
        const domain = new Domain("primary", {
          name,
          dmarc: GOOD_DMARC(name),
          ...program.domain,
          cloudflare: { zoneId, ...(ttl !== undefined && { ttl }) },
        });
        new Route("support", {
          name: "support",
          domainId: domain.domainId,
          endpointId: emulator().state.endpoints[0].id,
          mode: program.route?.mode ?? "Endpoint",
        });
        (program.records?.(name, zoneId) ?? []).forEach(
          (args, index) => new cloudflare.DnsRecord(`by-hand-${index}`, args),
        );
        return {};
      },
      { mode: "preview", emulator: emulator(), stack: program.stack ?? "production" },
    );
    expect(run.errors).toEqual([]);
    const analysis = await analyzeRun(policies, run, program.stack ?? "production");
    // Nothing but the rule under test may speak: the rest of the program meets every rule.
    expect(analysis.diagnostics.filter((d) => d.policy !== rule)).toEqual([]);
    return analysis.diagnostics.map((d) => d.message);
  }

  it("covers every rule", () => {
    expect(Object.keys(CASES).sort()).toEqual([...POLICY_NAMES].sort());
  });

  it.each(Object.entries(CASES).filter(([rule]) => rule !== "email-dns-ttl"))(
    "%s",
    async (rule, { pass, violate, says }) => {
      expect(await violations(rule, pass)).toEqual([]);
      const found = await violations(rule, violate);
      expect(found.length).toBeGreaterThan(0);
      for (const message of found) expect(message).toContain(says);
    },
  );

  it("email-dns-ttl", async () => {
    expect(await violations("email-dns-ttl", {}, 3600)).toEqual([]);
    expect(await violations("email-dns-ttl", {}, 60)).toEqual([
      expect.stringContaining("has a TTL of 60s (cloudflare.ttl), outside 300 to 14400s"),
    ]);
  });
});
