import { promises as dnsPromises } from "node:dns";
import {
  countSpfLookups,
  isSpfRecord,
  mergeSpfIncludes,
  missingSpfIncludes,
  parseSpf,
  removeSpfIncludes,
  ResolveTxt,
  serviceSpfIncludes,
  spfIncludeProblem,
  spfLookupProblem,
  spfLookupTerms,
  spfRecordCountProblem,
  spfUnresolvedWarning,
} from "../../provider/dns";
import { publishRecords } from "../support/cloudflare";
import { useEmulator } from "../support/emulator";

const POSTAL = "spf.postal.example.com";
const SERVICE_RECORD = `v=spf1 a mx include:${POSTAL} ~all`;

describe("isSpfRecord", () => {
  it.each([
    "v=spf1",
    "v=spf1 -all",
    "V=SPF1 include:_spf.google.com ~all",
    "v=spf1  a   mx ~all",
    SERVICE_RECORD,
  ])("accepts %j", (text) => {
    expect(isSpfRecord(text)).toBe(true);
  });

  it.each([
    "v=spf10 -all",
    "v=spf1-all",
    " v=spf1 -all",
    '"v=spf1 -all"',
    "v=DMARC1; p=none; rua=mailto:dmarc@example.com",
    "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ",
    "google-site-verification=rXOxyZounnZasA8Z7oaD3c14JdjS9aKSWvsR1EbUSIQ",
    "MS=ms12345678",
    "",
  ])("refuses %j", (text) => {
    expect(isSpfRecord(text)).toBe(false);
  });
});

describe("parseSpf", () => {
  it("reads qualifiers, mechanisms, CIDR lengths and modifiers, names in lowercase", () => {
    const record = parseSpf(
      "V=SPF1 +A:Mail.example.com/24//64 -MX/28 ?ip4:192.0.2.0/24 Redirect=_spf.example.com",
    );
    expect(record?.version).toBe("V=SPF1");
    expect(record?.terms).toEqual([
      {
        kind: "mechanism",
        text: "+A:Mail.example.com/24//64",
        offset: 7,
        qualifier: "+",
        name: "a",
        value: "Mail.example.com",
        cidr: "/24//64",
      },
      {
        kind: "mechanism",
        text: "-MX/28",
        offset: 34,
        qualifier: "-",
        name: "mx",
        value: undefined,
        cidr: "/28",
      },
      {
        kind: "mechanism",
        text: "?ip4:192.0.2.0/24",
        offset: 41,
        qualifier: "?",
        name: "ip4",
        value: "192.0.2.0/24",
        cidr: undefined,
      },
      {
        kind: "modifier",
        text: "Redirect=_spf.example.com",
        offset: 59,
        name: "redirect",
        value: "_spf.example.com",
      },
    ]);
  });

  it("keeps unknown terms verbatim and tolerates extra spaces", () => {
    const text = "v=spf1   ip6:2001:db8::/32  foo  exp=explain.%{d}  x-custom=1  include:x.example.com   ";
    const terms = parseSpf(text)!.terms;
    expect(terms.map((term) => [term.kind, term.text])).toEqual([
      ["mechanism", "ip6:2001:db8::/32"],
      ["unknown", "foo"],
      ["modifier", "exp=explain.%{d}"],
      ["modifier", "x-custom=1"],
      ["mechanism", "include:x.example.com"],
    ]);
    for (const term of terms) expect(text.slice(term.offset, term.offset + term.text.length)).toBe(term.text);
  });

  it("reads `include: domain` (a space after the colon, as Postal's check allows) as one include", () => {
    expect(parseSpf("v=spf1 include: spf.postal.example.com ~all")!.terms[0]).toMatchObject({
      kind: "mechanism",
      name: "include",
      text: "include: spf.postal.example.com",
      value: "spf.postal.example.com",
    });
    // …but not when what follows is a term of its own.
    expect(parseSpf("v=spf1 include: ~all")!.terms.map((term) => term.text)).toEqual(["include:", "~all"]);
  });

  it("is undefined for other TXT content", () => {
    expect(parseSpf("v=DMARC1; p=reject")).toBeUndefined();
  });
});

describe("serviceSpfIncludes", () => {
  it("takes only the include of Postal's record (its a and mx describe the service's domain)", () => {
    expect(serviceSpfIncludes(SERVICE_RECORD)).toEqual([POSTAL]);
  });

  it("takes every authorizing include once, not the ones with another qualifier", () => {
    expect(
      serviceSpfIncludes(
        "v=spf1 include:a.example.com +include:b.example.com ~include:c.example.com include:A.example.com -all",
      ),
    ).toEqual(["a.example.com", "b.example.com"]);
  });

  it("refuses a record that is not SPF", () => {
    expect(() => serviceSpfIncludes("v=DKIM1; p=AB")).toThrow(/not an SPF record/);
  });
});

describe("mergeSpfIncludes", () => {
  it.each([
    // Google Workspace, Microsoft 365: before `all`, its qualifier kept.
    ["v=spf1 include:_spf.google.com ~all", `v=spf1 include:_spf.google.com include:${POSTAL} ~all`],
    [
      "v=spf1 include:spf.protection.outlook.com -all",
      `v=spf1 include:spf.protection.outlook.com include:${POSTAL} -all`,
    ],
    ["v=spf1 mx ?all", `v=spf1 mx include:${POSTAL} ?all`],
    ["v=spf1 +all", `v=spf1 include:${POSTAL} +all`],
    ["v=spf1 -all", `v=spf1 include:${POSTAL} -all`],
    // Uppercase and extra spaces: the user's spelling and spacing stay.
    ["V=SPF1  IP4:192.0.2.1   ~ALL", `V=SPF1  IP4:192.0.2.1   include:${POSTAL} ~ALL`],
    // `all` not last: before it, since mechanisms after `all` are never evaluated (§5.1).
    ["v=spf1 a -all exp=explain.example.com", `v=spf1 a include:${POSTAL} -all exp=explain.example.com`],
    ["v=spf1 ~all include:late.example.com", `v=spf1 include:${POSTAL} ~all include:late.example.com`],
    // No `all`: after the last mechanism, so before a redirect or exp that follows it.
    [
      "v=spf1 ip4:192.0.2.0/24 redirect=_spf.example.com",
      `v=spf1 ip4:192.0.2.0/24 include:${POSTAL} redirect=_spf.example.com`,
    ],
    // Only a redirect: before it (mechanisms are evaluated before a redirect is followed, §6.1).
    ["v=spf1 redirect=_spf.example.com", `v=spf1 include:${POSTAL} redirect=_spf.example.com`],
    ["v=spf1 exp=explain.example.com", `v=spf1 include:${POSTAL} exp=explain.example.com`],
    // A tab is no separator (RFC 7208 §4.6.1): receivers that follow the RFC reject the record; one
    // that splits on any white space reads an `all` there, so the include goes before that term.
    ["v=spf1 mx\t~all", `v=spf1 include:${POSTAL} mx\t~all`],
    [
      "v=spf1 a ip4:192.0.2.1\t-all exp=e.example.com",
      `v=spf1 a include:${POSTAL} ip4:192.0.2.1\t-all exp=e.example.com`,
    ],
    ["v=spf1 include:_spf.google.com\t~all", `v=spf1 include:${POSTAL} include:_spf.google.com\t~all`],
    // Nothing to place it before: at the end, the user's trailing spaces kept.
    ["v=spf1", `v=spf1 include:${POSTAL}`],
    ["v=spf1 a mx ", `v=spf1 a mx include:${POSTAL} `],
  ])("%j → %j", (existing, merged) => {
    expect(mergeSpfIncludes(existing, [POSTAL])).toBe(merged);
    expect(removeSpfIncludes(merged, [POSTAL])).toBe(existing);
  });

  it("leaves a record that has the include unchanged: any letter case, final dot, + or a space after the colon", () => {
    for (const existing of [
      `v=spf1 include:${POSTAL} ~all`,
      "v=spf1 include:SPF.Postal.Example.COM -all",
      `v=spf1 +include:${POSTAL}. ~all`,
      `v=spf1 INCLUDE:${POSTAL}`,
      `v=spf1 include: ${POSTAL} ~all`,
      `v=spf1 ~include:${POSTAL} ~all`,
    ]) {
      expect(mergeSpfIncludes(existing, [POSTAL])).toBe(existing);
      expect(missingSpfIncludes(existing, [POSTAL])).toEqual([]);
    }
  });

  it("adds several includes once each, in the given order, only the missing ones", () => {
    expect(
      mergeSpfIncludes("v=spf1 include:b.example.com ~all", [
        "a.example.com",
        "b.example.com",
        "A.example.com",
        "c.example.com",
      ]),
    ).toBe("v=spf1 include:b.example.com include:a.example.com include:c.example.com ~all");
  });

  it("is what the service's record asks for, merged into the user's", () => {
    expect(mergeSpfIncludes("v=spf1 include:_spf.google.com ~all", serviceSpfIncludes(SERVICE_RECORD))).toBe(
      `v=spf1 include:_spf.google.com include:${POSTAL} ~all`,
    );
  });

  it("refuses content that is not an SPF record, and includes that are not domain names", () => {
    expect(() => mergeSpfIncludes("v=DMARC1; p=none", [POSTAL])).toThrow(/not an SPF record/);
    expect(() => mergeSpfIncludes("v=spf1 ~all", [`include:${POSTAL}`])).toThrow(/domain name/);
    expect(() => mergeSpfIncludes("v=spf1 ~all", ["a b"])).toThrow(/domain name/);
  });
});

describe("removeSpfIncludes", () => {
  it("removes only authorizing includes of those domains, leaving every other byte", () => {
    expect(removeSpfIncludes(`v=spf1  a  include:${POSTAL}  ~include:${POSTAL}  -all`, [POSTAL])).toBe(
      `v=spf1  a  ~include:${POSTAL}  -all`,
    );
    expect(
      removeSpfIncludes(`v=spf1 +INCLUDE:Spf.Postal.Example.com. include:other.example.com`, [POSTAL]),
    ).toBe("v=spf1 include:other.example.com");
    expect(removeSpfIncludes(`v=spf1 include:${POSTAL}`, [POSTAL])).toBe("v=spf1");
  });

  it("leaves a record the user already took the include out of unchanged", () => {
    expect(removeSpfIncludes("v=spf1 include:_spf.google.com ~all", [POSTAL])).toBe(
      "v=spf1 include:_spf.google.com ~all",
    );
  });

  it("keeps an include the user had before the merge, given what the merge reported adding", () => {
    const existing = `v=spf1 include:${POSTAL} ~all`;
    const added = missingSpfIncludes(existing, [POSTAL, "other.example.com"]);
    expect(added).toEqual(["other.example.com"]);
    const merged = mergeSpfIncludes(existing, [POSTAL, "other.example.com"]);
    expect(removeSpfIncludes(merged, added)).toBe(existing);
  });

  it("reads the record again after each removal: a bare `include:` joined to a removed domain goes too", () => {
    // Without the include between them, Postal's check reads `include: <domain>` as an include:
    // left there, it would still authorize the domain the caller asked to remove.
    expect(removeSpfIncludes(`v=spf1 include: include:${POSTAL} ${POSTAL} ~all`, [POSTAL])).toBe(
      "v=spf1 ~all",
    );
    // Joined to anything else, the user's words stay, in order.
    expect(removeSpfIncludes(`v=spf1 include: include:${POSTAL} foo ~all`, [POSTAL])).toBe(
      "v=spf1 include: foo ~all",
    );
  });
});

describe("spfIncludeProblem", () => {
  it("is undefined when an include authorizes the service, or there is none", () => {
    expect(spfIncludeProblem(`v=spf1 include:${POSTAL} ~all`, POSTAL)).toBeUndefined();
    expect(spfIncludeProblem("v=spf1 ~all", POSTAL)).toBeUndefined();
    expect(spfIncludeProblem(`v=spf1 ?include:${POSTAL} include:${POSTAL} ~all`, POSTAL)).toBeUndefined();
  });

  it("says why an include that is present does not authorize", () => {
    expect(spfIncludeProblem(`v=spf1 ~include:${POSTAL} -all`, POSTAL)).toMatch(
      /qualifier "~".*softfail.*§4\.6\.2/,
    );
    expect(spfIncludeProblem(`v=spf1 -all include:${POSTAL}`, POSTAL)).toMatch(
      /after -all.*never evaluate.*§5\.1/,
    );
    expect(spfIncludeProblem(`v=spf1 mx\t-all include:${POSTAL}`, POSTAL)).toMatch(
      /after mx\t-all.*never evaluate.*§5\.1/,
    );
    expect(spfIncludeProblem(`v=spf1 include: ${POSTAL} -all`, POSTAL)).toMatch(
      /space after the colon.*permerror/,
    );
  });
});

describe("spfLookupTerms", () => {
  const texts = (text: string) => spfLookupTerms(text).map((term) => term.text);

  it("lists the terms that query DNS (RFC 7208 §4.6.4), not all, ip4, ip6 or exp", () => {
    expect(
      texts(
        "v=spf1 a mx/24 ptr ip4:192.0.2.1 ip6:2001:db8::1 exists:%{i}.x.example.com include:y.example.com exp=e.example.com -all",
      ),
    ).toEqual(["a", "mx/24", "ptr", "exists:%{i}.x.example.com", "include:y.example.com"]);
  });

  it("counts a redirect only without all, and nothing after all (§5.1, §6.1)", () => {
    expect(texts("v=spf1 a redirect=_spf.example.com")).toEqual(["a", "redirect=_spf.example.com"]);
    expect(texts("v=spf1 a redirect=_spf.example.com ~all mx")).toEqual(["a"]);
  });
});

/** A resolver over a map of name → TXT records (as text); missing names are NXDOMAIN. */
function fakeResolver(zone: Record<string, (string | Error)[]>): { resolveTxt: ResolveTxt; asked: string[] } {
  const asked: string[] = [];
  const resolveTxt: ResolveTxt = async (name) => {
    asked.push(name);
    const records = zone[name.toLowerCase()];
    if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    const failure = records.find((record): record is Error => record instanceof Error);
    if (failure) throw failure;
    // Split like DNS would, to show that strings are joined without spaces (§3.3).
    return (records as string[]).map((text) =>
      text.length > 20 ? [text.slice(0, 20), text.slice(20)] : [text],
    );
  };
  return { resolveTxt, asked };
}

describe("countSpfLookups", () => {
  it("counts nested includes and redirects, each term with its cost", async () => {
    const { resolveTxt, asked } = fakeResolver({
      "_spf.google.com": [
        "v=spf1 include:_netblocks.google.com include:_netblocks2.google.com include:_netblocks3.google.com ~all",
      ],
      "_netblocks.google.com": ["v=spf1 ip4:35.190.247.0/24 ~all"],
      "_netblocks2.google.com": ["v=spf1 ip6:2001:4860:4000::/36 ~all"],
      "_netblocks3.google.com": ["v=spf1 ip4:172.217.0.0/19 ~all"],
      "spf.postal.example.com": [
        "v=spf1 a mx redirect=_tail.postal.example.com",
        "google-site-verification=x",
      ],
      "_tail.postal.example.com": ["v=spf1 ip4:192.0.2.0/24 -all"],
    });
    const count = await countSpfLookups(
      "v=spf1 a include:_spf.google.com include:spf.postal.example.com ~all",
      resolveTxt,
      { domain: "example.com" },
    );
    expect(count).toEqual({
      total: 9,
      limit: 10,
      unresolved: [],
      terms: [
        { term: "a", lookups: 1 },
        {
          term: "include:_spf.google.com",
          domain: "_spf.google.com",
          lookups: 4,
          children: [
            {
              term: "include:_netblocks.google.com",
              domain: "_netblocks.google.com",
              lookups: 1,
              children: [],
            },
            {
              term: "include:_netblocks2.google.com",
              domain: "_netblocks2.google.com",
              lookups: 1,
              children: [],
            },
            {
              term: "include:_netblocks3.google.com",
              domain: "_netblocks3.google.com",
              lookups: 1,
              children: [],
            },
          ],
        },
        {
          term: "include:spf.postal.example.com",
          domain: "spf.postal.example.com",
          lookups: 4,
          children: [
            { term: "a", lookups: 1 },
            { term: "mx", lookups: 1 },
            {
              term: "redirect=_tail.postal.example.com",
              domain: "_tail.postal.example.com",
              lookups: 1,
              children: [],
            },
          ],
        },
      ],
    });
    expect(asked).toHaveLength(6);
    expect(spfLookupProblem(count)).toBeUndefined();
    expect(spfUnresolvedWarning(count)).toBeUndefined();
  });

  it("counts a record included twice twice, and resolves it once", async () => {
    const { resolveTxt, asked } = fakeResolver({
      "a.example.com": ["v=spf1 include:shared.example.com -all"],
      "b.example.com": ["v=spf1 include:Shared.example.com -all"],
      "shared.example.com": ["v=spf1 mx -all"],
    });
    const count = await countSpfLookups(
      "v=spf1 include:a.example.com include:b.example.com ~all",
      resolveTxt,
    );
    expect(count.total).toBe(6);
    expect(asked.filter((name) => name.toLowerCase() === "shared.example.com")).toHaveLength(1);
  });

  it("stops at a loop, counting the term that closes it and saying so", async () => {
    const { resolveTxt } = fakeResolver({
      "example.com": ["v=spf1 include:a.example.com ~all"],
      "a.example.com": ["v=spf1 include:b.example.com -all"],
      "b.example.com": ["v=spf1 include:A.example.com include:example.com -all"],
    });
    const count = await countSpfLookups("v=spf1 include:a.example.com ~all", resolveTxt, {
      domain: "example.com",
    });
    expect(count.total).toBe(4);
    expect(count.unresolved).toEqual([
      { domain: "A.example.com", term: "include:A.example.com", reason: expect.stringMatching(/loop/) },
      { domain: "example.com", term: "include:example.com", reason: expect.stringMatching(/loop/) },
    ]);
  });

  it("lists what cannot be resolved, counting each term once: NXDOMAIN, no SPF, two SPF, DNS failures, macros", async () => {
    const timeout = Object.assign(new Error("queryTxt ETIMEOUT slow.example.com"), { code: "ETIMEOUT" });
    const { resolveTxt, asked } = fakeResolver({
      "nospf.example.com": ["google-site-verification=abc", "v=spf10 -all"],
      "twice.example.com": ["v=spf1 -all", "V=SPF1 a -all"],
      "slow.example.com": [timeout],
    });
    const count = await countSpfLookups(
      "v=spf1 include:missing.example.com include:nospf.example.com include:twice.example.com " +
        "include:slow.example.com include:%{d}.spf.example.com exists:%{i}.x.example.com include: -all",
      resolveTxt,
    );
    expect(count.total).toBe(7);
    expect(count.unresolved.map(({ domain, reason }) => [domain, reason])).toEqual([
      ["missing.example.com", expect.stringMatching(/NXDOMAIN.*permerror.*§5\.2/)],
      ["nospf.example.com", expect.stringMatching(/no SPF record/)],
      ["twice.example.com", expect.stringMatching(/^2 SPF records.*permerror/)],
      ["slow.example.com", expect.stringMatching(/timeout.*temperror/)],
      ["%{d}.spf.example.com", expect.stringMatching(/macro/)],
      ["", expect.stringMatching(/no domain/)],
    ]);
    expect(asked).not.toContain("%{d}.spf.example.com");
    const warning = spfUnresolvedWarning(count);
    expect(warning).toMatch(/^SPF lookup count 7 is a lower bound/);
    expect(warning).toContain("include:missing.example.com (no such name (NXDOMAIN)");
  });

  it("a redirect to nothing is permerror per §6.1", async () => {
    const { resolveTxt } = fakeResolver({});
    const count = await countSpfLookups("v=spf1 redirect=gone.example.com", resolveTxt);
    expect(count.unresolved[0].reason).toMatch(/§6\.1/);
  });

  it("over the limit: stops looking up, and the problem names the total, the limit and each term's cost", async () => {
    const zone: Record<string, string[]> = {};
    for (let i = 0; i < 6; i++) zone[`p${i}.example.com`] = ["v=spf1 a mx -all"];
    const { resolveTxt, asked } = fakeResolver(zone);
    const text = `v=spf1 ${[0, 1, 2, 3, 4, 5].map((i) => `include:p${i}.example.com`).join(" ")} ~all`;
    const count = await countSpfLookups(text, resolveTxt);
    // p0..p3 cost 3 each (12 > 10); p4 and p5 are counted but not looked up.
    expect(count.total).toBe(14);
    expect(asked).toEqual(["p0.example.com", "p1.example.com", "p2.example.com", "p3.example.com"]);
    expect(count.unresolved.map(({ domain }) => domain)).toEqual(["p4.example.com", "p5.example.com"]);
    expect(spfLookupProblem(count)).toBe(
      "SPF needs at least 14 DNS lookups, over the limit of 10 (RFC 7208 §4.6.4): receivers return " +
        "permerror, so no mail passes SPF. Lookups by term: include:p0.example.com 3, include:p1.example.com 3, " +
        "include:p2.example.com 3, include:p3.example.com 3, include:p4.example.com 1, include:p5.example.com 1.",
    );
  });

  it("exactly 10 is within the limit; 11 is not", async () => {
    const { resolveTxt } = fakeResolver({});
    const within = await countSpfLookups(`v=spf1 ${"a ".repeat(10)}-all`, resolveTxt);
    expect(within.total).toBe(10);
    expect(spfLookupProblem(within)).toBeUndefined();
    const over = await countSpfLookups(`v=spf1 ${"a ".repeat(9)}mx ptr -all`, resolveTxt);
    expect(spfLookupProblem(over)).toBe(
      "SPF needs 11 DNS lookups, over the limit of 10 (RFC 7208 §4.6.4): receivers return permerror, " +
        "so no mail passes SPF. Lookups by term: a 1, a 1, a 1, a 1, a 1, a 1, a 1, a 1, a 1, mx 1, ptr 1.",
    );
  });

  it("refuses a record that is not SPF", async () => {
    await expect(countSpfLookups("v=DMARC1; p=none", fakeResolver({}).resolveTxt)).rejects.toThrow(
      /not an SPF record/,
    );
  });
});

describe("spfRecordCountProblem", () => {
  it("is undefined for one SPF record among other TXT records, or none", () => {
    expect(spfRecordCountProblem(["v=spf1 -all", "google-site-verification=x", "v=spf10 a"])).toBeUndefined();
    expect(spfRecordCountProblem([])).toBeUndefined();
  });

  it("names the count when there are more, in text or as node:dns gives them", () => {
    expect(
      spfRecordCountProblem(["v=spf1 include:_spf.google.com ~all", SERVICE_RECORD], "example.com"),
    ).toBe(
      "2 SPF records at example.com: a name may have only one, receivers return permerror (RFC 7208 §3.2, §4.5); " +
        "merge them into one record",
    );
    expect(spfRecordCountProblem([["v=spf1 ", "-all"], ["V=SPF1 a"], ["v=spf1"]])).toMatch(/^3 SPF records:/);
  });
});

describe("countSpfLookups through DNS (the emulator's Cloudflare stand-in and DNS server)", () => {
  const emulator = useEmulator();

  it("resolves the published records with a node:dns Resolver", async () => {
    const txt = (name: string, content: string) => ({ purpose: "spf" as const, type: "TXT", name, content });
    await publishRecords(emulator(), [
      txt(
        "example.com",
        "v=spf1 include:_spf.example.com include:twice.example.com include:missing.example.com mx ~all",
      ),
      txt("example.com", "google-site-verification=abc"),
      txt("_spf.example.com", "v=spf1 ip4:192.0.2.0/24 include:_netblocks.example.com -all"),
      txt("_netblocks.example.com", "v=spf1 a ip6:2001:db8::/32 redirect=_tail.example.com"),
      txt("_tail.example.com", `v=spf1 exists:%{i}._spf.example.com ${"x".repeat(300)}=long -all`),
      txt("twice.example.com", "v=spf1 -all"),
      txt("twice.example.com", "v=spf1 a -all"),
    ]);
    const resolver = new dnsPromises.Resolver({ timeout: 5000, tries: 2 });
    resolver.setServers([emulator().dns.address]);
    const resolveTxt: ResolveTxt = (name) => resolver.resolveTxt(name);

    const apex = await resolveTxt("example.com");
    expect(spfRecordCountProblem(apex, "example.com")).toBeUndefined();
    const record = apex.map((strings) => strings.join("")).find(isSpfRecord)!;

    const count = await countSpfLookups(record, resolveTxt, { domain: "example.com" });
    // _spf 1 + _netblocks 1 + a 1 + redirect 1 + exists 1; twice 1; missing 1; mx 1.
    expect(count.total).toBe(8);
    expect(count.terms.map(({ term, lookups }) => [term, lookups])).toEqual([
      ["include:_spf.example.com", 5],
      ["include:twice.example.com", 1],
      ["include:missing.example.com", 1],
      ["mx", 1],
    ]);
    expect(count.unresolved).toEqual([
      {
        domain: "twice.example.com",
        term: "include:twice.example.com",
        reason: expect.stringMatching(/^2 SPF records/),
      },
      {
        domain: "missing.example.com",
        term: "include:missing.example.com",
        reason: expect.stringMatching(/NXDOMAIN/),
      },
    ]);
    expect(spfRecordCountProblem(await resolveTxt("twice.example.com"), "twice.example.com")).toMatch(
      /^2 SPF records/,
    );
  });
});
