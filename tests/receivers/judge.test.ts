import { judgeReceivers, receiversAccept, serviceMail } from "../../provider/receivers";
import {
  dkimPublicKey,
  DnsTable,
  INCLUDE,
  publishedAsAsked,
  serviceRecords,
  tableResolver,
} from "../support/receivers-world";

/**
 * The receivers' model (provider/receivers/judge.ts) over DNS tables: the postures issue 34 found the
 * package calling verified while receivers reject the mail, and the ones it failed that receivers
 * accept. Real receivers judge the same postures in tests/receivers/corpus.test.ts.
 */

const DOMAIN = "mail.example.com";
const ALL = { spf: true, envelope: true, dkim: true };
const NO_DKIM = { spf: true, envelope: true, dkim: false };

async function judge(table: DnsTable, failing: string[] = [], domain = DOMAIN) {
  const mail = serviceMail(serviceRecords(domain))!;
  return judgeReceivers(mail, tableResolver(table, failing));
}

describe("the service's mail as receivers judge it", () => {
  it("published as the service asks, without DMARC: SPF and DKIM pass, DMARC none, accepted", async () => {
    const judgement = await judge(publishedAsAsked(DOMAIN));
    expect([judgement.spf, judgement.dkim, judgement.dmarc]).toEqual(["pass", "pass", "none"]);
    expect(judgement.findings).toEqual([]);
    // Both identities, both families: the return path (through its CNAME) and the domain's own record.
    expect(judgement.spfChecks.map((c) => [c.identity, c.ip, c.result])).toEqual([
      [`psrp.${DOMAIN}`, "192.0.2.1", "pass"],
      [`psrp.${DOMAIN}`, "2001:db8::1", "pass"],
      [DOMAIN, "192.0.2.1", "pass"],
      [DOMAIN, "2001:db8::1", "pass"],
    ]);
    expect(receiversAccept(judgement, ALL)).toBe(true);
  });

  it("a second SPF record beside the Domain's: permerror for the domain's record (RFC 7208 §4.5), rejected", async () => {
    const table = publishedAsAsked(DOMAIN);
    table[DOMAIN].TXT!.push("v=spf1 include:_spf.google.com ~all");
    const judgement = await judge(table);
    expect(judgement.spf).toBe("fail");
    expect(judgement.findings).toEqual([
      expect.objectContaining({
        check: "spf",
        record: `TXT ${DOMAIN}`,
        receivers: expect.stringContaining(
          "has 2 SPF records: a name may have one, more is permerror (RFC 7208 §4.5)",
        ),
        fix: `Keep one SPF record at ${DOMAIN}: merge the others into it (with include:${INCLUDE}).`,
      }),
    ]);
    expect(receiversAccept(judgement, ALL)).toBe(false);
  });

  it("the include written in capitals: receivers compare names without case, SPF passes", async () => {
    const judgement = await judge(
      publishedAsAsked(DOMAIN, { [DOMAIN]: { TXT: [`v=spf1 a mx INCLUDE:${INCLUDE.toUpperCase()} ~all`] } }),
    );
    expect(judgement.spf).toBe("pass");
  });

  it("p=reject with aspf=s and a DKIM key that is not the service's: DMARC fails even without the dkim check", async () => {
    const table = publishedAsAsked(DOMAIN, {
      [`_dmarc.${DOMAIN}`]: { TXT: ["v=DMARC1; p=reject; aspf=s"] },
      [`postal-abc123._domainkey.${DOMAIN}`]: { TXT: [`v=DKIM1; p=${dkimPublicKey(1024)}`] },
    });
    const judgement = await judge(table);
    expect(judgement.dmarc).toBe("fail");
    expect(judgement.dmarcPolicy).toEqual(
      expect.objectContaining({ policy: "reject", aspf: "s", spfAligned: false, dkimAligned: false }),
    );
    const dmarc = judgement.findings.find((f) => f.check === "dmarc")!;
    expect(dmarc.receivers).toContain(
      `SPF cannot align: aspf=s needs the envelope sender at ${DOMAIN} itself, and the service's is at psrp.${DOMAIN}`,
    );
    expect(dmarc.receivers).toContain("p=reject gives it: reject");
    expect(receiversAccept(judgement, NO_DKIM)).toBe(false);
  });

  it("relaxed alignment: the return path's SPF aligns, DMARC passes though DKIM fails", async () => {
    const table = publishedAsAsked(DOMAIN, {
      [`_dmarc.${DOMAIN}`]: { TXT: ["v=DMARC1; p=reject"] },
      [`postal-abc123._domainkey.${DOMAIN}`]: { TXT: ["v=DKIM1; p="] },
    });
    const judgement = await judge(table);
    expect([judgement.dkim, judgement.dmarc]).toEqual(["fail", "pass"]);
    expect(judgement.findings.map((f) => f.receivers)).toEqual([
      "verifiers can use no key from it: the key is revoked: p= is empty (RFC 6376 §3.6.1)",
    ]);
    expect(receiversAccept(judgement, NO_DKIM)).toBe(true);
    expect(receiversAccept(judgement, ALL)).toBe(false);
  });

  it("two DMARC records at _dmarc: receivers apply no DMARC at all (RFC 7489 §6.6.3)", async () => {
    const judgement = await judge(
      publishedAsAsked(DOMAIN, { [`_dmarc.${DOMAIN}`]: { TXT: ["v=DMARC1; p=reject", "v=DMARC1; p=none"] } }),
    );
    expect(judgement.dmarc).toBe("fail");
    expect(judgement.findings[0].receivers).toBe(
      "2 DMARC records are served there: receivers then apply no DMARC policy at all (RFC 7489 §6.6.3)",
    );
  });

  it("DMARC found at the organizational domain, not at a parent in between", async () => {
    const judgement = await judge(
      publishedAsAsked("mail.eu.example.com", {
        "_dmarc.eu.example.com": { TXT: ["v=DMARC1; p=none"] },
        "_dmarc.example.com": { TXT: ["v=DMARC1; p=quarantine; sp=reject; aspf=s; adkim=s"] },
        "postal-abc123._domainkey.mail.eu.example.com": { TXT: ["v=DKIM1; t=y; p=" + dkimPublicKey(1024)] },
      }),
      [],
      "mail.eu.example.com",
    );
    // sp governs a subdomain of the organizational domain; strict SPF cannot align; DKIM key is not the service's.
    expect(judgement.dmarcPolicy).toEqual(
      expect.objectContaining({ record: "_dmarc.example.com", policy: "reject" }),
    );
    expect(judgement.dmarc).toBe("fail");
  });

  it("pct=0 applies the next-lower policy to every message (RFC 7489 §6.6.4)", async () => {
    const judgement = await judge(
      publishedAsAsked(DOMAIN, {
        [`_dmarc.${DOMAIN}`]: { TXT: ["v=DMARC1; p=quarantine; pct=0; aspf=s"] },
        [`postal-abc123._domainkey.${DOMAIN}`]: { TXT: ["v=DKIM1; p="] },
      }),
    );
    expect(judgement.dmarcPolicy?.disposition).toEqual({ applied: "none", rest: "none" });
    expect(judgement.findings.at(-1)!.receivers).toContain("p=quarantine gives it: none");
  });

  it.each([
    [
      "a key under 1024 bits",
      () => `v=DKIM1; p=${dkimPublicKey(512)}`,
      "the key has 512 bits: verifiers refuse keys under 1024 (RFC 8301 §3.2)",
    ],
    ["testing mode", () => `v=DKIM1; t=y; p=${SERVICE_P()}`, "it says t=y (testing)"],
    ["two records", () => ["v=DKIM1; p=", `v=DKIM1; p=${SERVICE_P()}`], "2 TXT records are served there"],
  ])("DKIM: %s fails", async (_what, content, said) => {
    const texts = content();
    const judgement = await judge(
      publishedAsAsked(DOMAIN, {
        [`postal-abc123._domainkey.${DOMAIN}`]: { TXT: Array.isArray(texts) ? texts : [texts] },
      }),
    );
    expect(judgement.dkim).toBe("fail");
    expect(judgement.findings[0].receivers).toContain(said);
  });

  it("a return path that does not point at the service: its envelope is at the service's own host (Postal), which does not align", async () => {
    const judgement = await judge(
      publishedAsAsked(DOMAIN, {
        [`psrp.${DOMAIN}`]: { CNAME: ["rp.elsewhere.example.net"] },
        [`_dmarc.${DOMAIN}`]: { TXT: ["v=DMARC1; p=reject"] },
        [`postal-abc123._domainkey.${DOMAIN}`]: { TXT: ["v=DKIM1; p="] },
      }),
    );
    expect(judgement.spfChecks.map((check) => check.identity)).toContain("rp.postal.example.com");
    // rp.postal.example.com and mail.example.com share example.com here: relaxed SPF aligns.
    expect(judgement.dmarcPolicy).toEqual(expect.objectContaining({ spfAligned: true }));
    const elsewhere = await judgeReceivers(
      { ...serviceMail(serviceRecords("mail.example.org"))! },
      tableResolver(
        publishedAsAsked("mail.example.org", {
          "psrp.mail.example.org": { CNAME: ["rp.elsewhere.example.net"] },
          "_dmarc.mail.example.org": { TXT: ["v=DMARC1; p=reject"] },
          "postal-abc123._domainkey.mail.example.org": { TXT: ["v=DKIM1; p="] },
        }),
      ),
    );
    expect(elsewhere.dmarcPolicy).toEqual(expect.objectContaining({ spfAligned: false, dkimAligned: false }));
    expect(elsewhere.dmarc).toBe("fail");
  });

  it("a DNS failure is never a pass: the verdict is left open", async () => {
    const judgement = await judge(publishedAsAsked(DOMAIN), [`_dmarc.${DOMAIN}`]);
    expect(judgement.dmarc).toBe("unknown");
    expect(receiversAccept(judgement, ALL)).toBeUndefined();
  });

  it("an include that costs more than the limit leaves: permerror past 10 lookups", async () => {
    const nested: DnsTable = {};
    for (let i = 0; i < 10; i++)
      nested[`n${i}.example.net`] = { TXT: [`v=spf1 include:n${i + 1}.example.net -all`] };
    nested["n10.example.net"] = { TXT: ["v=spf1 -all"] };
    const judgement = await judge(
      publishedAsAsked(DOMAIN, {
        [DOMAIN]: { TXT: [`v=spf1 include:n0.example.net include:${INCLUDE} ~all`] },
        ...nested,
      }),
    );
    expect(judgement.spf).toBe("fail");
    expect(judgement.findings[0].receivers).toContain("more than 10 is permerror (RFC 7208 §4.6.4)");
  });
});

function SERVICE_P(): string {
  return /p=([^;]+)/.exec(serviceRecords(DOMAIN)[1].content)![1];
}
