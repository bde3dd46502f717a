import { emailDeliveryPolicies } from "../../provider/policy";
import { isProductionStack } from "../../provider/policy/stage";
import { domainSettings } from "../../provider/resources/domain-settings";
import { TYPE_TOKENS } from "../../provider/resources/type-tokens";
import { UNKNOWN_MARKER } from "../../testing";
import { AnalyzedResource, Analysis, analyzeResource, analyzeStack } from "../support/policy-analysis";

/**
 * The gaps issue 37 found, each over a posture that passes and one that violates, through
 * `@pulumi/policy`'s own handlers: relative record names, pct=0, DMARC at a parent that is not the
 * organizational domain, SPF open by ranges, rua not mailto:, stack names in any case, unknown
 * content, DKIM keys, alignment, and the production defaults.
 */

const policies = emailDeliveryPolicies();
const ZONE = "023e105f4ecef8ad9ca31a8372d0c353";
const KEY_512 =
  "MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBALZxkZS964ZcSZN+kvY4S7aOSv+Ze1+kUhk7xOdnCs3OONGTL14+N8dmvUb8L7+U2Swm3naGHvxCdhAL4HazuSMCAwEAAQ==";
const KEY_2048 =
  "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA3ByVqFMhrQkD2f6hZ32LAB0H2N7WZQ+yVCNbq8MNhlba75j0gaIjJUJhxiildgo0Tz4ppnVym6J0Clq1NS/8gsn0Fk/t2EU94lV6DYjI1QorHRiOnFG3vegqEZjQHVL3AnuchxoJhbVRjtOt9uMmYwohikeYsPyZHiQaom3CQ6R8nnWcIJhj9AFdtbKk2192/Oj/ZfLsGed9/PaKFmandA7yKrhkxGL11JmE5WcfvJJ0GoIr4ZooEzJU+Gi1gCyXiTa8Kjg9DKoMV0hTD9kDudRN6a0izlLqbwrD0IM45YZp55jTYCazUt6o773a59tnS2kCIjvVGyV8js0Qiv/wvQIDAQAB";

type Settings = Partial<Parameters<typeof domainSettings>[0]>;
const DMARC_OK = {
  policy: "reject" as const,
  subdomainPolicy: "reject" as const,
  aggregateReports: ["mailto:d@example.com"],
};

function domain(name: string, fqdn: string, args: Settings = {}): AnalyzedResource {
  return {
    type: TYPE_TOKENS.Domain,
    name,
    props: { ...domainSettings({ name: fqdn, cloudflare: { zoneId: ZONE }, dmarc: DMARC_OK, ...args }) },
  };
}

function txt(name: string, recordName: string, content: unknown, type = "TXT"): AnalyzedResource {
  return {
    type: TYPE_TOKENS.DnsRecord,
    name,
    props: { zoneId: ZONE, ttl: 300, type, name: recordName, content },
  };
}

function of(analysis: Analysis, policy: string): string[] {
  return analysis.diagnostics.filter((d) => d.policy === policy).map((d) => d.message);
}

function skipped(analysis: Analysis, policy: string): string[] {
  return analysis.notApplicable.filter((n) => n.policy === policy).map((n) => n.reason);
}

describe("relative names (@, mail) resolved against the zone of the stack's Domains, or flagged", () => {
  const spf = "email-spf-single-record";
  const mx = "email-mx-single-provider";

  it("a Domain at the organizational domain names its zone: @ and mail are resolved", async () => {
    const apex = domain("apex", "example.com");
    expect(of(await analyzeStack(policies, [apex, txt("hand", "@", '"v=spf1 -all"')]), spf)).toHaveLength(2);
    expect(of(await analyzeStack(policies, [apex, txt("hand", "news", '"v=spf1 -all"')]), spf)).toEqual([]);
    const sub = domain("mail", "mail.example.com");
    const both = await analyzeStack(policies, [apex, sub, txt("hand", "mail", '"v=spf1 -all"')]);
    expect(of(both, spf).join("\n")).toContain(
      'DnsRecord "hand" (TXT at mail) publishes an SPF record at mail.example.com',
    );
    const mxHand = txt("google-mx", "@", "smtp.google.com", "MX");
    expect(of(await analyzeStack(policies, [apex, mxHand]), mx)).toEqual([
      expect.stringContaining("inbound mail would be split between two providers"),
    ]);
  });

  it("a cloudflare.Zone the record depends on names the zone", async () => {
    const zone = {
      type: "cloudflare:index/zone:Zone",
      name: "zone",
      urn: "urn:pulumi:production::p::cloudflare:index/zone:Zone::zone",
      props: { name: "example.com" },
    };
    const record = { ...txt("hand", "mail", '"v=spf1 -all"'), dependencies: [zone.urn] };
    expect(
      of(await analyzeStack(policies, [zone, domain("mail", "mail.example.com"), record]), spf),
    ).toHaveLength(2);
  });

  it("a zone the stack cannot name: flagged, never passed in silence", async () => {
    const sub = domain("mail", "mail.example.com");
    expect(of(await analyzeStack(policies, [sub, txt("hand", "@", '"v=spf1 -all"')]), spf)).toEqual([
      expect.stringContaining('cannot tell which name "@" is'),
    ]);
    expect(
      of(await analyzeStack(policies, [sub, txt("google-mx", "mail", "smtp.google.com", "MX")]), mx),
    ).toEqual([expect.stringContaining('cannot tell which name "mail" is')]);
    // Full names are compared as before.
    expect(
      of(await analyzeStack(policies, [sub, txt("hand", "news.mail.example.com", '"v=spf1 -all"')]), spf),
    ).toEqual([]);
  });
});

describe("unknown content in preview: a finding or not applicable, with the reason", () => {
  it("a hand TXT record fed from another output", async () => {
    const record = txt("fed", "mail.example.com", UNKNOWN_MARKER);
    expect(skipped(await analyzeResource(policies, record), "email-spf-record")).toEqual([
      expect.stringContaining("the TXT record's content is not known until `pulumi up`"),
    ]);
    const stack = await analyzeStack(policies, [domain("mail", "mail.example.com"), record]);
    expect(of(stack, "email-spf-single-record")).toEqual([
      expect.stringContaining("content is not known in this preview (another resource's output)"),
    ]);
    const dkim = txt("key", "s1._domainkey.mail.example.com", UNKNOWN_MARKER);
    expect(skipped(await analyzeResource(policies, dkim), "email-dkim-key")).toEqual([
      expect.stringContaining("the DKIM record's content is not known"),
    ]);
  });
});

describe("DMARC postures", () => {
  it("p=quarantine; pct=0 in production enforces nothing; pct=100 and p=reject; pct=0 (quarantine) do", async () => {
    const zero = txt(
      "dmarc",
      "_dmarc.example.com",
      '"v=DMARC1; p=quarantine; pct=0; rua=mailto:d@example.com"',
    );
    expect(of(await analyzeResource(policies, zero), "email-dmarc-enforced")).toEqual([
      expect.stringContaining("publishes DMARC p=quarantine with pct=0"),
    ]);
    const settings = domain("mail", "example.com", {
      dmarc: { ...DMARC_OK, policy: "quarantine", subdomainPolicy: undefined, percent: 0 },
    });
    expect(of(await analyzeResource(policies, settings), "email-dmarc-enforced")).toEqual([
      expect.stringContaining("Set dmarc.percent to 100"),
    ]);
    for (const content of ["v=DMARC1; p=quarantine; pct=100", "v=DMARC1; p=reject; pct=0"]) {
      expect(
        of(
          await analyzeResource(policies, txt("dmarc", "_dmarc.example.com", content)),
          "email-dmarc-enforced",
        ),
      ).toEqual([]);
    }
  });

  it("a DMARC record at a parent that is not the organizational domain does not count", async () => {
    const sub = domain("mail", "mail.eu.example.com", { dmarc: undefined });
    const parent = txt("eu", "_dmarc.eu.example.com", '"v=DMARC1; p=reject; rua=mailto:d@example.com"');
    expect(of(await analyzeStack(policies, [sub, parent]), "email-dmarc-published")).toEqual([
      expect.stringContaining("declares no DMARC policy in this stack"),
    ]);
    const org = txt("org", "_dmarc.example.com", '"v=DMARC1; p=reject; rua=mailto:d@example.com"');
    expect(of(await analyzeStack(policies, [sub, org]), "email-dmarc-published")).toEqual([]);
  });

  it("a hand record whose rua is not a mailto: URI", async () => {
    const https = txt("dmarc", "_dmarc.example.com", '"v=DMARC1; p=reject; rua=https://reports.example.com"');
    expect(of(await analyzeResource(policies, https), "email-dmarc-aggregate-reports")).toEqual([
      expect.stringContaining(
        'at a URI receivers do not send to: "https://reports.example.com" must be a mailto: URI',
      ),
    ]);
    const mail = txt("dmarc", "_dmarc.example.com", '"v=DMARC1; p=reject; rua=mailto:d@example.com"');
    expect(of(await analyzeResource(policies, mail), "email-dmarc-aggregate-reports")).toEqual([]);
  });
});

describe("SPF that lets any server send without +all", () => {
  it.each([["ip4:0.0.0.0/0"], ["ip6:::/0"], ["ip4:0.0.0.0/1 ip4:128.0.0.0/1"], ["ip6:::/1 ip6:8000::/1"]])(
    "%s",
    async (terms) => {
      const open = txt("hand", "news.example.com", `"v=spf1 ${terms} -all"`);
      expect(of(await analyzeResource(policies, open), "email-spf-record")).toEqual([
        expect.stringContaining("lets any server send as the domain over IPv"),
      ]);
    },
  );

  it("passes ranges that leave servers out, and ranges after -all", async () => {
    for (const terms of [
      "ip4:192.0.2.0/24 ip6:2001:db8::/32",
      "ip4:0.0.0.0/2 ip4:128.0.0.0/1",
      "-ip4:0.0.0.0/0",
    ]) {
      const record = txt("hand", "news.example.com", `"v=spf1 ${terms} -all"`);
      expect(of(await analyzeResource(policies, record), "email-spf-record")).toEqual([]);
    }
  });
});

describe("stack names without regard to case", () => {
  it.each(["Production", "PROD", "production"])("%s is production", async (stack) => {
    expect(isProductionStack(stack, ["production", "prod"])).toBe(true);
    const none = domain("mail", "example.com", {
      dmarc: { policy: "none", aggregateReports: ["mailto:d@example.com"] },
    });
    expect(of(await analyzeResource(policies, none, stack), "email-dmarc-enforced")).toHaveLength(1);
  });

  it("staging is not", async () => {
    expect(isProductionStack("Staging", ["production", "prod"])).toBe(false);
  });
});

describe("email-dkim-key", () => {
  const key = (content: string) => txt("key", "s1._domainkey.example.com", `"${content}"`);

  it.each([
    ["revoked", "v=DKIM1; k=rsa; p=", "revokes its key (p= is empty)"],
    ["testing", `v=DKIM1; t=y; p=${KEY_2048}`, "says t=y (testing)"],
    ["512 bits", `v=DKIM1; p=${KEY_512}`, "holds a 512-bit RSA key"],
  ])("%s: violates", async (_, content, says) => {
    expect(of(await analyzeResource(policies, key(content)), "email-dkim-key")).toEqual([
      expect.stringContaining(says),
    ]);
  });

  it("a 2048-bit key passes; the Domain's own DKIM record is the service's", async () => {
    expect(
      of(await analyzeResource(policies, key(`v=DKIM1; k=rsa; p=${KEY_2048}`)), "email-dkim-key"),
    ).toEqual([]);
  });
});

describe("email-dmarc-alignment", () => {
  const strict = { ...DMARC_OK, spfAlignment: "strict" as const };

  it("strict SPF alignment with a verification that leaves DKIM out, or none: named", async () => {
    for (const verification of [{ checks: ["spf" as const] }, false as const]) {
      const analysis = await analyzeResource(
        policies,
        domain("mail", "example.com", { dmarc: strict, verification }),
      );
      expect(of(analysis, "email-dmarc-alignment")).toEqual([expect.stringContaining("by DKIM alone")]);
    }
  });

  it("passes with dkim checked (or the default checks), relaxed alignment, or p=none", async () => {
    for (const args of [
      { dmarc: strict, verification: { checks: ["spf" as const, "dkim" as const] } },
      { dmarc: strict },
      { dmarc: DMARC_OK, verification: { checks: ["spf" as const] } },
    ]) {
      expect(
        of(await analyzeResource(policies, domain("mail", "example.com", args)), "email-dmarc-alignment"),
      ).toEqual([]);
    }
    const unknown = domain("mail", "example.com", {
      dmarc: strict,
      verification: { checks: UNKNOWN_MARKER as never },
    });
    expect(skipped(await analyzeResource(policies, unknown), "email-dmarc-alignment")).toEqual([
      expect.stringContaining("verification.checks is not known"),
    ]);
  });
});

describe("defaults: mandatory in production, advisory in staging", () => {
  const level = (stack: string) =>
    Object.fromEntries(
      emailDeliveryPolicies({ stack }).map((policy) => [policy.name, policy.enforcementLevel]),
    );

  it("production stacks (any case)", () => {
    for (const stack of ["production", "Production", "PROD"]) {
      expect(level(stack)).toMatchObject({
        "email-dmarc-published": "mandatory",
        "email-dmarc-enforced": "mandatory",
        "email-dmarc-alignment": "mandatory",
        "email-dkim-key": "mandatory",
        "email-spf-record": "mandatory",
        "email-spf-single-record": "mandatory",
        "email-mx-single-provider": "mandatory",
      });
    }
  });

  it("staging: the same rules advisory (the production-only ones do not apply there)", () => {
    expect(level("staging")).toMatchObject({
      "email-dmarc-published": "advisory",
      "email-dmarc-alignment": "advisory",
      "email-dkim-key": "advisory",
    });
    expect(
      emailDeliveryPolicies({
        stack: "production",
        enforcementLevels: { "email-dkim-key": "advisory" },
      }).find((p) => p.name === "email-dkim-key")!.enforcementLevel,
    ).toBe("advisory");
  });
});
