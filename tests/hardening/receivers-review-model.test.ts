import { CachedSpfResolver } from "../../provider/dns/spf-dns";
import {
  checkHost,
  judgeReceivers,
  organizationalDomain,
  receiverResolver,
  receiversAccept,
  serviceMail,
} from "../../provider/receivers";
import type { DnsAnswer, DnsQuery } from "../../provider/dns/dns-query";
import { readDkimKey, dkimKeyProblem } from "../../provider/receivers/dkim-key";
import { judgedChecks } from "../../provider/verification/receivers-step";
import type { CheckName } from "../../provider/inputs";
import { generateKeyPairSync } from "node:crypto";
import {
  DnsTable,
  INCLUDE,
  publishedAsAsked,
  SERVICE_DKIM,
  SERVICE_KEY,
  serviceRecords,
  tableResolver,
} from "../support/receivers-world";

/**
 * Adversarial review of receivers' judgement (provider/receivers) over DNS tables. Each test asserts
 * what RFC 7208 / 6376 / 7489 say receivers do; the ones that fail on the code as reviewed are
 * defects (see the report), the others are attacks that held.
 */

const DOMAIN = "mail.example.com";
const ALL: readonly CheckName[] = ["spf", "dkim", "mx", "returnPath"];

async function judge(table: DnsTable, failing: string[] = [], domain = DOMAIN) {
  const mail = serviceMail(serviceRecords(domain))!;
  return judgeReceivers(mail, tableResolver(table, failing));
}

function spfOf(table: DnsTable, record: string, ip: string, domain = "example.org") {
  return checkHost(
    { ip, domain, sender: `postmaster@${domain}`, helo: "mx.example.net" },
    new CachedSpfResolver(tableResolver({ ...table, [domain]: { ...table[domain], TXT: [record] } })),
  );
}

describe("false rejections: receivers accept the service's mail, the package says they would not", () => {
  it("checks without 'spf': the apex's own SPF record (another provider's, -all) decides nothing for mail whose envelope is at the return path", async () => {
    // A standalone verification for a stack that does not own the apex SPF record: the service's
    // mail has MAIL FROM at psrp.<domain> (RFC 7208 §2.4: check_host runs on the MAIL FROM identity),
    // DKIM passes, DMARC (none here) would align on either. Receivers never evaluate the apex record
    // for this mail.
    const judgement = await judge(
      publishedAsAsked(DOMAIN, {
        [DOMAIN]: { TXT: ["v=spf1 include:_spf.other.example.net -all"] },
        "_spf.other.example.net": { TXT: ["v=spf1 ip4:198.51.100.0/24 -all"] },
      }),
    );
    const checks: CheckName[] = ["dkim", "mx", "returnPath"];
    expect(receiversAccept(judgement, judgedChecks(checks))).toBe(true);
  });

  // Decided (issue 34): two DMARC records, or a DMARC failure at p=none, are not a pass. Receivers
  // then deliver the service's mail (no policy applies; p=none asks for no action), but the
  // domain's published policy protects nothing, or its reports show the service's own mail
  // failing: issue 34 counts "DMARC where one is published" among what must pass. The corpus
  // (tests/receivers/corpus.test.ts) records what rspamd and authheaders say of the first.
  it("two DMARC records at _dmarc.<domain>: DMARC is not applied (RFC 7489 §6.6.3): not a pass, said as such", async () => {
    const judgement = await judge(
      publishedAsAsked(DOMAIN, {
        [`_dmarc.${DOMAIN}`]: { TXT: ["v=DMARC1; p=reject", "v=DMARC1; p=quarantine"] },
      }),
    );
    expect([judgement.spf, judgement.dkim, judgement.dmarc]).toEqual(["pass", "pass", "fail"]);
    expect(judgement.findings[0].receivers).toContain("receivers then apply no DMARC policy at all");
    expect(receiversAccept(judgement, judgedChecks(ALL))).toBe(false);
  });

  it("two DMARC records at the organizational domain: not applied either, and not a pass", async () => {
    const judgement = await judge(
      publishedAsAsked(DOMAIN, {
        "_dmarc.example.com": { TXT: ["v=DMARC1; p=reject", "v=DMARC1; p=none; rua=mailto:d@example.com"] },
      }),
    );
    expect(receiversAccept(judgement, judgedChecks(ALL))).toBe(false);
  });

  it("p=none: a DMARC fail asks receivers for no action (RFC 7489 §6.3), but it is a fail, not a pass", async () => {
    // The stack asks the SPF checks only; DKIM's key is not published yet; aspf=s cannot align.
    const table = publishedAsAsked(DOMAIN, {
      [`_dmarc.${DOMAIN}`]: { TXT: ["v=DMARC1; p=none; aspf=s; rua=mailto:d@example.com"] },
    });
    delete table[`postal-abc123._domainkey.${DOMAIN}`];
    const judgement = await judge(table);
    expect([judgement.spf, judgement.dmarc]).toEqual(["pass", "fail"]);
    expect(judgement.findings.at(-1)!.receivers).toContain("p=none gives it: none");
    expect(receiversAccept(judgement, judgedChecks(["spf", "mx", "returnPath"]))).toBe(false);
  });

  it("p= invalid and no rua: receivers apply no DMARC at all (RFC 7489 §6.6.3 step 6)", async () => {
    const table = publishedAsAsked(DOMAIN, { [`_dmarc.${DOMAIN}`]: { TXT: ["v=DMARC1; p=rejct; aspf=s"] } });
    delete table[`postal-abc123._domainkey.${DOMAIN}`];
    const judgement = await judge(table);
    expect(judgement.dmarc).toBe("none");
    expect(receiversAccept(judgement, judgedChecks(["spf", "mx", "returnPath"]))).toBe(true);
  });

  it("v=dmarc1 (lowercase) is not a DMARC record: the version is matched exactly (RFC 7489 §6.4, ABNF %x44 %x4d …)", async () => {
    const table = publishedAsAsked(DOMAIN, { [`_dmarc.${DOMAIN}`]: { TXT: ["v=dmarc1; p=reject; aspf=s"] } });
    delete table[`postal-abc123._domainkey.${DOMAIN}`];
    const judgement = await judge(table);
    expect(judgement.dmarc).toBe("none");
  });
});

describe("a DNS answer that cannot be had is never a pass", () => {
  it("the return path's CNAME lookup fails (SERVFAIL): receivers' SPF for the envelope is not known, so acceptance is not either", async () => {
    const judgement = await judge(publishedAsAsked(DOMAIN), [`psrp.${DOMAIN}`]);
    // No SPF check of the envelope identity could be made: never accepted.
    expect(receiversAccept(judgement, judgedChecks(ALL))).toBeUndefined();
  });

  it("held: the service's include SERVFAILs: unknown, not pass", async () => {
    const judgement = await judge(publishedAsAsked(DOMAIN), [INCLUDE]);
    expect(receiversAccept(judgement, judgedChecks(ALL))).toBeUndefined();
  });

  it("held: the DKIM selector SERVFAILs: unknown, not pass", async () => {
    const judgement = await judge(publishedAsAsked(DOMAIN), [`postal-abc123._domainkey.${DOMAIN}`]);
    expect(judgement.dkim).toBe("unknown");
    expect(receiversAccept(judgement, judgedChecks(ALL))).toBeUndefined();
  });

  it("held: _dmarc at the organizational domain SERVFAILs: unknown, not pass", async () => {
    const judgement = await judge(publishedAsAsked(DOMAIN), ["_dmarc.example.com"]);
    expect(judgement.dmarc).toBe("unknown");
    expect(receiversAccept(judgement, judgedChecks(ALL))).toBeUndefined();
  });
});

describe("check_host() against RFC 7208", () => {
  it("an IPv4-mapped IPv6 client is an IPv4 client (RFC 7208 §5: it MUST still be considered an IPv4 address; pyspf does)", async () => {
    const check = await spfOf({}, "v=spf1 ip4:192.0.2.0/24 -all", "::ffff:192.0.2.1");
    expect(check.result).toBe("pass");
  });

  it("held: void lookups for an IPv6 client (AAAA of A-only hosts) count, the third is permerror (§4.6.4; pyspf alike)", async () => {
    const table: DnsTable = {
      "h1.example.net": { A: ["198.51.100.1"] },
      "h2.example.net": { A: ["198.51.100.2"] },
      "h3.example.net": { A: ["198.51.100.3"] },
    };
    const record = "v=spf1 a:h1.example.net a:h2.example.net a:h3.example.net ip6:2001:db8::/32 -all";
    expect((await spfOf(table, record, "2001:db8::1")).result).toBe("permerror");
    expect((await spfOf(table, record, "192.0.2.1")).result).toBe("fail");
  });

  it("held: include of a domain without SPF is permerror (§5.2), redirect= is ignored with all (§6.1), to none permerror", async () => {
    expect(
      (
        await spfOf(
          { "none.example.net": { A: ["192.0.2.9"] } },
          "v=spf1 include:none.example.net -all",
          "192.0.2.1",
        )
      ).result,
    ).toBe("permerror");
    expect(
      (await spfOf({}, "v=spf1 ip4:192.0.2.1 redirect=nowhere.example.net -all", "192.0.2.2")).result,
    ).toBe("fail");
    expect((await spfOf({}, "v=spf1 redirect=nowhere.example.net", "192.0.2.2")).result).toBe("permerror");
  });

  it("held: mechanism names without case, unknown modifiers ignored, exp= not followed", async () => {
    expect(
      (await spfOf({}, "v=spf1 IP4:192.0.2.0/24 Foo=bar exp=explain.%{d} -ALL", "192.0.2.1")).result,
    ).toBe("pass");
    expect((await spfOf({}, "V=SPF1 ip4:192.0.2.0/24 -all", "192.0.2.1")).result).toBe("pass");
  });

  it("held: macros expanded per message (%{i} for IPv6 as nibbles, %{l}, %{p} as unknown)", async () => {
    const nibbles = "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2";
    const table: DnsTable = {
      [`${nibbles}.ip6._spf.example.org`]: { A: ["127.0.0.2"] },
      "192.0.2.1.postmaster.example.org": { A: ["127.0.0.2"] },
    };
    expect((await spfOf(table, "v=spf1 exists:%{ir}.%{v}._spf.%{d} -all", "2001:db8::1")).result).toBe(
      "pass",
    );
    expect((await spfOf(table, "v=spf1 exists:%{i}.%{v}._spf.%{d} -all", "2001:db8::1")).result).toBe("fail");
    expect((await spfOf(table, "v=spf1 exists:%{i}.%{l}.%{d} -all", "192.0.2.1")).result).toBe("pass");
  });

  it("held: include loops end in permerror, never in a pass", async () => {
    const table: DnsTable = {
      "a.example.net": { TXT: ["v=spf1 include:b.example.net -all"] },
      "b.example.net": { TXT: ["v=spf1 include:a.example.net -all"] },
    };
    expect((await spfOf(table, "v=spf1 include:a.example.net -all", "192.0.2.1")).result).toBe("permerror");
  });

  it("held: mx with 11 names is permerror (§4.6.4 MUST; pyspf strict alike)", async () => {
    const table: DnsTable = {
      "mxs.example.net": { MX: Array.from({ length: 11 }, (_, i) => `mx${i}.example.net`) },
    };
    for (let i = 0; i < 11; i++) table[`mx${i}.example.net`] = { A: ["192.0.2.1"] };
    expect((await spfOf(table, "v=spf1 mx:mxs.example.net -all", "192.0.2.1")).result).toBe("permerror");
  });
});

describe("DKIM key records", () => {
  it("held: PKCS#1 keys, keys with white space, t=y:s, h=sha1:sha256, strings joined", () => {
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const pkcs1 = publicKey.export({ type: "pkcs1", format: "der" }).toString("base64");
    expect(readDkimKey(`v=DKIM1; k=rsa; p=${pkcs1}`).problem).toBeUndefined();
    const spaced = SERVICE_KEY.replace(/(.{60})/g, "$1 ");
    expect(dkimKeyProblem([`v=DKIM1; h=sha1:sha256; p=${spaced}`], SERVICE_DKIM)).toBeUndefined();
    expect(readDkimKey(`v=DKIM1; t=y:s; p=${SERVICE_KEY}`)).toEqual(
      expect.objectContaining({ testing: true, strict: true }),
    );
  });
});

describe("the organizational domain (tldts)", () => {
  it.each([
    ["psrp.mail.example.co.uk", "example.co.uk"],
    ["MAIL.Example.COM.", "example.com"],
    ["a.b.example.github.io", "example.github.io"],
    ["mail.xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["psrp.mail.xn--fiqs8s", "mail.xn--fiqs8s"],
    ["mail_1.example.com", "example.com"],
  ])("held: %s → %s", (name, org) => {
    expect(organizationalDomain(name)).toBe(org);
  });
});

describe("more postures", () => {
  it("checks: ['mx'] (a domain that only receives): there is no outgoing mail to judge, so receivers' verdict cannot fail the wait", async () => {
    // Inbound only: the stack publishes MX and routes; no SPF include, no DKIM key, no return path.
    const table = publishedAsAsked(DOMAIN, { [DOMAIN]: { TXT: ["v=spf1 -all"] } });
    delete table[`postal-abc123._domainkey.${DOMAIN}`];
    delete table[`psrp.${DOMAIN}`];
    const judgement = await judge(table);
    expect(receiversAccept(judgement, judgedChecks(["mx"]))).not.toBe(false);
  });

  it("a DMARC TXT whose text starts with a literal quote is not a DMARC record (RFC 7489 §6.6.3: records not starting v=DMARC1 are discarded)", async () => {
    const table = publishedAsAsked(DOMAIN, {
      [`_dmarc.${DOMAIN}`]: { TXT: ['"v=DMARC1; p=reject; aspf=s"'] },
    });
    delete table[`postal-abc123._domainkey.${DOMAIN}`];
    const judgement = await judge(table);
    expect(judgement.dmarc).toBe("none");
  });

  it("DKIM: an expected record whose p= cannot be read never lets any served key pass (fail-open)", () => {
    const other = `v=DKIM1; p=${generateKeyPairSync("rsa", { modulusLength: 2048 })
      .publicKey.export({ type: "spki", format: "der" })
      .toString("base64")}`;
    // As a --records file from a zone export would give it (quoted), or a fork's record without p=.
    expect(dkimKeyProblem([other], `"${SERVICE_DKIM}"`)).toBeDefined();
    expect(dkimKeyProblem([other], "v=DKIM1; t=s; h=sha256")).toBeDefined();
  });

  it("nameservers that disagree: the second serves a second SPF record; receivers asking it get permerror, so the verdict is no pass", async () => {
    const ns1 = "192.0.2.53";
    const ns2 = "198.51.100.53";
    const base = publishedAsAsked(DOMAIN);
    const stale = publishedAsAsked(DOMAIN);
    stale[DOMAIN].TXT!.push("v=spf1 include:_spf.old.example.net ~all");
    const answerFrom =
      (table: DnsTable) =>
      async (name: string, type: string): Promise<DnsAnswer> => {
        const types = Object.entries(table).find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
        if (!types) return { nxdomain: true };
        return { values: (types as Record<string, string[] | undefined>)[type] ?? [] };
      };
    const query: DnsQuery = (server, name, type) =>
      server === ns2 ? answerFrom(stale)(name, type) : answerFrom(base)(name, type);
    const inZone = (name: string) => name === DOMAIN || name.endsWith(`.${DOMAIN}`);
    const dns = receiverResolver(query, (name) => (inZone(name) ? [ns1, ns2] : [undefined]));
    const judgement = await judgeReceivers(serviceMail(serviceRecords(DOMAIN))!, dns);
    expect(receiversAccept(judgement, judgedChecks(ALL))).not.toBe(true);
  });
});
