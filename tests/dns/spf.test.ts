import {
  respellSpfIncludes,
  isSpfRecord,
  mergeSpfIncludes,
  missingSpfIncludes,
  parseSpf,
  removeSpfIncludes,
  serviceSpfIncludes,
  spfIncludeProblem,
  spfLookupTerms,
  spfRecordCountProblem,
} from "../../provider/dns";

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
    // A tab is no separator (RFC 7208 §4.6.1): receivers that follow the RFC reject the record (the
    // lookup check says so); one that splits on any white space reads an `all` there, so the include
    // goes before that term.
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

  it("leaves a record that has the include unchanged: + or another qualifier, a space after the colon", () => {
    for (const existing of [
      `v=spf1 include:${POSTAL} ~all`,
      `v=spf1 +include:${POSTAL} ~all`,
      `v=spf1 include: ${POSTAL} ~all`,
      `v=spf1 ~include:${POSTAL} ~all`,
    ]) {
      expect(mergeSpfIncludes(existing, [POSTAL])).toBe(existing);
      expect(missingSpfIncludes(existing, [POSTAL])).toEqual([]);
    }
  });

  it("adds nothing to a record with the include in other letters or with a final dot, and respells it as the service does", () => {
    for (const [existing, merged] of [
      ["v=spf1 include:SPF.Postal.Example.COM -all", `v=spf1 include:${POSTAL} -all`],
      [`v=spf1 +include:${POSTAL}. ~all`, `v=spf1 +include:${POSTAL} ~all`],
      [`v=spf1 INCLUDE:${POSTAL}`, `v=spf1 include:${POSTAL}`],
    ]) {
      expect(mergeSpfIncludes(existing, [POSTAL])).toBe(merged);
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

describe("respellSpfIncludes: the service's include in the service's letters (Postal matches it case-sensitively)", () => {
  it("respells only the include term (its qualifier kept), keeping every other byte", () => {
    expect(
      respellSpfIncludes("v=spf1 mx  ?INCLUDE:SPF.Postal.Example.COM. ~all", ["spf.postal.example.com"]),
    ).toBe("v=spf1 mx  ?include:spf.postal.example.com ~all");
    expect(respellSpfIncludes("v=spf1 include:spf.postal.example.com -all", ["spf.postal.example.com"])).toBe(
      "v=spf1 include:spf.postal.example.com -all",
    );
    expect(respellSpfIncludes("v=spf1 include:_spf.google.com -all", ["spf.postal.example.com"])).toBe(
      "v=spf1 include:_spf.google.com -all",
    );
  });

  it("a merge of a record naming the include in capitals respells it and adds nothing", () => {
    const merged = mergeSpfIncludes("v=spf1 INCLUDE:SPF.POSTAL.EXAMPLE.COM ~all", ["spf.postal.example.com"]);
    expect(merged).toBe("v=spf1 include:spf.postal.example.com ~all");
    expect(
      missingSpfIncludes("v=spf1 INCLUDE:SPF.POSTAL.EXAMPLE.COM ~all", ["spf.postal.example.com"]),
    ).toEqual([]);
    // What Postal's check matches (`include:\s*<spf_include>`, case-sensitive) is now there.
    expect(/include:\s*spf\.postal\.example\.com/.test(merged)).toBe(true);
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
