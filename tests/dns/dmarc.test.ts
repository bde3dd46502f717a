import {
  DMARC_RECORD_PREFIX,
  dmarcRecordContent,
  dmarcRecordName,
  isDmarcRecord,
  parseDmarc,
  quoteTxt,
} from "../../provider/dns";
import type { DmarcArgs } from "../../provider/dns";
import { dmarcProblems } from "../../provider/inputs";

const uriExample = 'must be a mailto: URI such as "mailto:dmarc@example.com"';
const settings =
  "the settings are policy, subdomainPolicy, dkimAlignment, spfAlignment, percent, aggregateReports, failureReports, failureReportOptions";

/** The problems of settings given as a JavaScript program might give them. */
const problemsOf = (args: unknown) => dmarcProblems(args);

/** The one problem of a report URI given as aggregateReports' only entry. */
function uriProblem(uri: unknown): string | undefined {
  const problems = dmarcProblems({ policy: "none", aggregateReports: [uri] });
  expect(problems.length).toBeLessThanOrEqual(1);
  if (problems.length === 1) expect(problems[0].property).toBe("dmarc.aggregateReports[0]");
  return problems[0]?.reason;
}

describe("dmarcRecordName", () => {
  it("is _dmarc under the domain, lowercase, without a trailing dot", () => {
    expect(DMARC_RECORD_PREFIX).toBe("_dmarc");
    expect(dmarcRecordName("mail.example.com")).toBe("_dmarc.mail.example.com");
    expect(dmarcRecordName("Mail.Example.COM.")).toBe("_dmarc.mail.example.com");
  });
});

describe("dmarcRecordContent", () => {
  it("writes v and p alone for a bare policy", () => {
    expect(dmarcRecordContent({ policy: "none" })).toBe("v=DMARC1; p=none");
  });

  it("writes every tag in RFC order, whatever the order of the settings", () => {
    const args: DmarcArgs = {
      failureReportOptions: ["spfFail", "anyFail", "dkimFail"],
      failureReports: ["mailto:dmarc-failures@example.com"],
      aggregateReports: ["mailto:dmarc@example.com", "mailto:reports@dmarc.example.net!10m"],
      percent: 25,
      spfAlignment: "strict",
      dkimAlignment: "strict",
      subdomainPolicy: "reject",
      policy: "quarantine",
    };
    expect(dmarcRecordContent(args)).toBe(
      "v=DMARC1; p=quarantine; sp=reject; adkim=s; aspf=s; pct=25; " +
        "rua=mailto:dmarc@example.com,mailto:reports@dmarc.example.net!10m; " +
        "ruf=mailto:dmarc-failures@example.com; fo=1:d:s",
    );
  });

  it("leaves defaults out: sp equal to p, relaxed alignment, pct=100, fo=0", () => {
    expect(
      dmarcRecordContent({
        policy: "reject",
        subdomainPolicy: "reject",
        dkimAlignment: "relaxed",
        spfAlignment: "relaxed",
        percent: 100,
        failureReports: ["mailto:f@example.com"],
        failureReportOptions: ["allFail"],
      }),
    ).toBe("v=DMARC1; p=reject; ruf=mailto:f@example.com");
  });

  it("writes pct=0 (not a default) and keeps fo=0 beside other options", () => {
    expect(
      dmarcRecordContent({
        policy: "reject",
        percent: 0,
        failureReports: ["mailto:f@example.com"],
        failureReportOptions: ["anyFail", "allFail"],
      }),
    ).toBe("v=DMARC1; p=reject; pct=0; ruf=mailto:f@example.com; fo=0:1");
  });

  it("keeps URIs as written: percent-encodings, quoted local parts, size limits, scheme case", () => {
    const uris = [
      "mailto:dmarc%2Breports@example.com!1g",
      "mailto:%22a%2Cb%3Bc%22@example.com",
      "MAILTO:Reports@Example.COM!500K",
    ];
    expect(dmarcRecordContent({ policy: "none", aggregateReports: uris })).toBe(
      `v=DMARC1; p=none; rua=${uris.join(",")}`,
    );
  });

  it("treats null settings as left out (as a JavaScript program may give them)", () => {
    const args = { policy: "none", subdomainPolicy: null, percent: null, aggregateReports: null };
    expect(dmarcRecordContent(args as unknown as DmarcArgs)).toBe("v=DMARC1; p=none");
  });

  it("throws with every problem, in the message and as `problems`", () => {
    const args = { policy: "Reject", percent: 101 } as unknown as DmarcArgs;
    expect(() => dmarcRecordContent(args)).toThrow(
      "DMARC settings are not valid:\n" +
        '  dmarc.policy: must be "none", "quarantine" or "reject", not the text "Reject": use "reject"\n' +
        "  dmarc.percent: must be a whole number from 0 to 100, not number 101",
    );
    try {
      dmarcRecordContent(args);
    } catch (error) {
      expect((error as { problems: unknown }).problems).toEqual(dmarcProblems(args));
    }
  });

  it("a long list of URIs runs past one TXT string; quoteTxt splits it and parseDmarc reads it back", () => {
    const uris = Array.from({ length: 8 }, (_, i) => `mailto:dmarc-reports-${i}@reports.example.net!10m`);
    const content = dmarcRecordContent({ policy: "reject", aggregateReports: uris });
    expect(content.length).toBeGreaterThan(255);
    const quoted = quoteTxt(content);
    expect(quoted.match(/"(?:[^"\\]|\\.)*"/g)).toHaveLength(2);
    expect(parseDmarc(quoted)).toEqual({ v: "DMARC1", p: "reject", rua: uris.join(",") });
  });
});

describe("dmarcProblems", () => {
  it("finds none in good settings", () => {
    expect(problemsOf({ policy: "none" })).toEqual([]);
    expect(
      problemsOf({
        policy: "reject",
        subdomainPolicy: "quarantine",
        aggregateReports: ["mailto:a@example.com", "mailto:b@example.net!10m"],
        failureReports: ["mailto:%22a%2Cb%22@example.com"],
        percent: 0,
        dkimAlignment: "strict",
        spfAlignment: "relaxed",
        failureReportOptions: ["allFail", "anyFail", "dkimFail", "spfFail"],
      }),
    ).toEqual([]);
  });

  it("names the path it is given", () => {
    expect(dmarcProblems({}, "args.dmarc")).toEqual([
      { property: "args.dmarc.policy", reason: 'is required: one of "none", "quarantine" or "reject"' },
    ]);
  });

  it.each([
    [null, "null"],
    [undefined, "undefined"],
    ["p=reject", 'the text "p=reject"'],
    [["none"], "a list"],
    [5, "number 5"],
  ])("refuses settings that are not an object: %p", (args, shown) => {
    expect(problemsOf(args)).toEqual([
      { property: "dmarc", reason: `must be an object such as { policy: "none" }, not ${shown}` },
    ]);
  });

  describe("policy and subdomainPolicy", () => {
    it("needs a policy", () => {
      for (const args of [{}, { policy: undefined }, { policy: null }]) {
        expect(problemsOf(args)).toEqual([
          { property: "dmarc.policy", reason: 'is required: one of "none", "quarantine" or "reject"' },
        ]);
      }
    });

    it.each([
      ["Reject", 'not the text "Reject": use "reject"'],
      [" none ", 'not the text " none ": use "none"'],
      ["block", 'not the text "block"'],
      ["", 'not the text ""'],
      [1, "not number 1"],
      [true, "not boolean true"],
      [{}, "not an object"],
      [() => "none", "not a function"],
    ])("refuses %p", (value, rest) => {
      const reason = `must be "none", "quarantine" or "reject", ${rest}`;
      expect(problemsOf({ policy: value })).toEqual([{ property: "dmarc.policy", reason }]);
      expect(problemsOf({ policy: "none", subdomainPolicy: value })).toEqual([
        { property: "dmarc.subdomainPolicy", reason },
      ]);
    });
  });

  describe("dkimAlignment and spfAlignment", () => {
    it.each([
      ["s", 'not the text "s": use "strict"'],
      ["r", 'not the text "r": use "relaxed"'],
      ["Strict", 'not the text "Strict": use "strict"'],
      ["loose", 'not the text "loose"'],
      [0, "not number 0"],
    ])("refuses %p", (value, rest) => {
      for (const key of ["dkimAlignment", "spfAlignment"]) {
        expect(problemsOf({ policy: "none", [key]: value })).toEqual([
          { property: `dmarc.${key}`, reason: `must be "relaxed" or "strict", ${rest}` },
        ]);
      }
    });
  });

  describe("percent", () => {
    it.each([0, 1, 50, 100])("accepts %p", (percent) =>
      expect(problemsOf({ policy: "none", percent })).toEqual([]),
    );

    it.each([
      [-1, "number -1"],
      [101, "number 101"],
      [12.5, "number 12.5"],
      [Number.NaN, "number NaN"],
      [Number.POSITIVE_INFINITY, "number Infinity"],
      ["50", 'the text "50": use 50, a number'],
      ["50%", 'the text "50%"'],
      [[50], "a list"],
    ])("refuses %p", (percent, shown) => {
      expect(problemsOf({ policy: "none", percent })).toEqual([
        { property: "dmarc.percent", reason: `must be a whole number from 0 to 100, not ${shown}` },
      ]);
    });
  });

  describe("aggregateReports and failureReports", () => {
    it("must be non-empty lists", () => {
      for (const key of ["aggregateReports", "failureReports"]) {
        expect(problemsOf({ policy: "none", [key]: [] })).toEqual([
          { property: `dmarc.${key}`, reason: `must not be empty: leave ${key} out to ask for none` },
        ]);
        expect(problemsOf({ policy: "none", [key]: 7 })).toEqual([
          {
            property: `dmarc.${key}`,
            reason: 'must be a list such as ["mailto:dmarc@example.com"], not number 7',
          },
        ]);
      }
    });

    it("shows the list a text given instead of one would make", () => {
      expect(
        problemsOf({ policy: "none", aggregateReports: "mailto:a@example.com, mailto:b@example.com" }),
      ).toEqual([
        {
          property: "dmarc.aggregateReports",
          reason:
            'must be a list such as ["mailto:dmarc@example.com"], not a long text: use ' +
            '["mailto:a@example.com","mailto:b@example.com"]',
        },
      ]);
      expect(problemsOf({ policy: "none", failureReports: "mailto:f@example.com" })).toEqual([
        {
          property: "dmarc.failureReports",
          reason:
            'must be a list such as ["mailto:dmarc@example.com"], not the text "mailto:f@example.com": ' +
            'use ["mailto:f@example.com"]',
        },
      ]);
    });

    it("names each bad entry by its index, and each repeat", () => {
      expect(
        problemsOf({
          policy: "none",
          aggregateReports: ["mailto:a@example.com", "dmarc@example.com", "mailto:a@example.com"],
          failureReports: ["mailto:f@example.com", 42],
        }),
      ).toEqual([
        {
          property: "dmarc.aggregateReports[1]",
          reason: `${uriExample}, not "dmarc@example.com": use "mailto:dmarc@example.com"`,
        },
        { property: "dmarc.aggregateReports[2]", reason: "repeats aggregateReports[0]" },
        { property: "dmarc.failureReports[1]", reason: `${uriExample}, not number 42` },
      ]);
    });

    it("treats a hole in a list as an entry", () => {
      const withHole: string[] = [];
      withHole[0] = "mailto:a@example.com";
      withHole[2] = "mailto:b@example.com";
      expect(1 in withHole).toBe(false);
      expect(problemsOf({ policy: "none", aggregateReports: withHole })).toEqual([
        { property: "dmarc.aggregateReports[1]", reason: `${uriExample}, not undefined` },
      ]);
    });

    it.each([
      "mailto:dmarc@example.com",
      "MAILTO:Dmarc@Example.COM",
      "mailto:dmarc@example.com!10",
      "mailto:dmarc@example.com!10k",
      "mailto:dmarc@example.com!10M",
      "mailto:dmarc@example.com!1g",
      "mailto:dmarc@example.com!1t",
      "mailto:dmarc@example.com!18446744073709551615",
      "mailto:first.last+dmarc@example.com",
      "mailto:o%27brien@example.com",
      "mailto:a%21b@example.com",
      "mailto:%22a%2Cb%3Bc%22@example.com",
      "mailto:dmarc@xn--bcher-kva.example",
      "mailto:dmarc@sub-domain.example.co.uk",
    ])("accepts %s", (uri) => expect(uriProblem(uri)).toBeUndefined());

    it.each([
      // not strings
      [5, `${uriExample}, not number 5`],
      [null, `${uriExample}, not null`],
      [{ uri: "mailto:a@example.com" }, `${uriExample}, not an object`],
      ["", 'must not be empty: give a mailto: URI such as "mailto:dmarc@example.com"'],
      // not mailto:
      ["dmarc@example.com", `${uriExample}, not "dmarc@example.com": use "mailto:dmarc@example.com"`],
      ["example.com", `${uriExample}, not "example.com"`],
      ["mailto dmarc@example.com", `${uriExample}, not "mailto dmarc@example.com"`],
      [
        "https://dmarc.example.com/reports",
        `${uriExample}, not "https://dmarc.example.com/reports": receivers need only send reports by email (RFC 7489 §6.2)`,
      ],
      [
        "http://example.com",
        `${uriExample}, not "http://example.com": receivers need only send reports by email (RFC 7489 §6.2)`,
      ],
      // characters that break the record
      ["mailto:a@example.com; p=none", 'must not contain ";", which would end the tag: write it as "%3B"'],
      [
        "mailto:a@example.com,mailto:b@example.com",
        'must not contain ",": give each address as its own entry, and write a comma within an address as "%2C" (RFC 7489 §6.4)',
      ],
      [
        "mailto:a!b@example.com",
        'may have "!" only once, before a size limit at the end such as "!10m" (a number, then k, m, g or t); write a "!" within the address as "%21"',
      ],
      [
        "mailto:a@example.com!10mb",
        'may have "!" only once, before a size limit at the end such as "!10m" (a number, then k, m, g or t); write a "!" within the address as "%21"',
      ],
      [
        "mailto:a@example.com!",
        'may have "!" only once, before a size limit at the end such as "!10m" (a number, then k, m, g or t); write a "!" within the address as "%21"',
      ],
      [
        "mailto:a@example.com!1!2",
        'may have "!" only once, before a size limit at the end such as "!10m" (a number, then k, m, g or t); write a "!" within the address as "%21"',
      ],
      [
        "mailto:a@example.com!18446744073709551616",
        "has a size limit too large: the number must fit in 64 bits",
      ],
      [
        "mailto:a@example.com!0m",
        "has a size limit of 0, which no report fits: leave the limit out or raise it",
      ],
      [
        "mailto:a@example.com?subject=dmarc",
        'must be "mailto:" and one address, without "?" or "#" parts; within an address write them as "%3F" and "%23"',
      ],
      [
        "mailto:a@example.com#x",
        'must be "mailto:" and one address, without "?" or "#" parts; within an address write them as "%3F" and "%23"',
      ],
      ["mailto: a@example.com", 'has whitespace (" "), which a URI cannot carry: remove it'],
      ["mailto:a@example.com\n", 'has whitespace ("\\n"), which a URI cannot carry: remove it'],
      ['mailto:"a"@example.com', 'has "\\"", which a URI cannot carry: write it as "%22"'],
      ["mailto:a^b@example.com", 'has "^", which a URI cannot carry: write it as "%5E"'],
      ["mailto:a\u0000@example.com", 'has "\\u0000", which a URI cannot carry: write it as "%00"'],
      [
        "mailto:dmarc@bücher.example",
        'has "ü", which a URI cannot carry: give an international domain in punycode (xn--…), and percent-encode other characters as UTF-8',
      ],
      [
        "mailto:a%2@example.com",
        'has a "%" that is not followed by two hex digits: write a "%" within the address as "%25"',
      ],
      ["mailto:a%FF@example.com", "has a percent-encoding that is not UTF-8 text"],
      // malformed addresses
      ["mailto:", 'must be "mailto:" and an address such as "dmarc@example.com", not "mailto:"'],
      [
        "mailto:example.com",
        'must be "mailto:" and an address such as "dmarc@example.com", not "mailto:example.com"',
      ],
      ["mailto:a@b@example.com", 'must hold one address, but has more than one "@"'],
      ["mailto:@example.com", 'has nothing before "@"'],
      [
        "mailto:a..b@example.com",
        `has "a..b" before "@", which is not an address's local part: letters, digits, !#$%&'*+-/=?^_\`{|}~ and dots (never first, last or two in a row), or a quoted string`,
      ],
      [
        "mailto:.a@example.com",
        `has ".a" before "@", which is not an address's local part: letters, digits, !#$%&'*+-/=?^_\`{|}~ and dots (never first, last or two in a row), or a quoted string`,
      ],
      [
        "mailto:a%2Cb@example.com",
        `has "a,b" before "@", which is not an address's local part: letters, digits, !#$%&'*+-/=?^_\`{|}~ and dots (never first, last or two in a row), or a quoted string`,
      ],
      [
        `mailto:${"a".repeat(65)}@example.com`,
        'has a part before "@" of 65 bytes; an address has at most 64 there',
      ],
      [
        "mailto:a@",
        'has the domain "", which must not be empty: give the domain\'s name, e.g. "mail.example.com"',
      ],
      [
        "mailto:a@example",
        'has the domain "example", which must have at least two labels, e.g. "mail.example.com"',
      ],
      [
        "mailto:a@example.com.",
        'has the domain "example.com.", which must not end with a dot: use "example.com"',
      ],
      [
        "mailto:a@exa..mple.com",
        'has the domain "exa..mple.com", which must not have two dots in a row: use "exa.mple.com"',
      ],
      [
        "mailto:a@ex_ample.com",
        'has the domain "ex_ample.com", which has "_" in "ex_ample": a domain name has only a-z, 0-9, "-" and dots: remove it, or write "-"',
      ],
      [
        "mailto:a@[192.0.2.1]",
        'has the domain "[192.0.2.1]", which looks like an IP address: give a domain name, e.g. "mail.example.com"',
      ],
      [
        "mailto:a@192.0.2.1",
        'has the domain "192.0.2.1", which looks like an IP address: give a domain name, e.g. "mail.example.com"',
      ],
      [
        "mailto:a@-example.com",
        'has the domain "-example.com", which has a label that starts or ends with "-" ("-example"): remove the "-"',
      ],
    ])("refuses %p", (uri, reason) => expect(uriProblem(uri)).toBe(reason));

    it("shows a long URI cut short", () => {
      const uri = `https://${"x".repeat(100)}.example.com`;
      expect(uriProblem(uri)).toBe(
        `${uriExample}, not ${JSON.stringify(`${uri.slice(0, 80)}…`)}: receivers need only send reports by email (RFC 7489 §6.2)`,
      );
    });
  });

  describe("failureReportOptions", () => {
    const withRuf = { policy: "none", failureReports: ["mailto:f@example.com"] };

    it("accepts each option once, in any order", () => {
      expect(problemsOf({ ...withRuf, failureReportOptions: ["spfFail", "allFail"] })).toEqual([]);
    });

    it.each([
      ["1", 'not the text "1": use "anyFail"'],
      ["0", 'not the text "0": use "allFail"'],
      ["d", 'not the text "d": use "dkimFail"'],
      ["S", 'not the text "S": use "spfFail"'],
      ["AnyFail", 'not the text "AnyFail": use "anyFail"'],
      ["any", 'not the text "any"'],
      ["constructor", 'not the text "constructor"'],
      [1, "not number 1"],
    ])("refuses %p, naming the entry", (option, rest) => {
      expect(problemsOf({ ...withRuf, failureReportOptions: ["anyFail", option] })).toEqual([
        {
          property: "dmarc.failureReportOptions[1]",
          reason: `must be "allFail", "anyFail", "dkimFail" or "spfFail", ${rest}`,
        },
      ]);
    });

    it("refuses repeats, an empty list, and what is not a list (showing the list a text would make, if good)", () => {
      expect(problemsOf({ ...withRuf, failureReportOptions: "anyFail, dkimFail" })).toEqual([
        {
          property: "dmarc.failureReportOptions",
          reason:
            'must be a list such as ["anyFail"], not the text "anyFail, dkimFail": use ["anyFail","dkimFail"]',
        },
      ]);
      expect(problemsOf({ ...withRuf, failureReportOptions: ["dkimFail", "dkimFail"] })).toEqual([
        { property: "dmarc.failureReportOptions[1]", reason: "repeats failureReportOptions[0]" },
      ]);
      expect(problemsOf({ ...withRuf, failureReportOptions: [] })).toEqual([
        {
          property: "dmarc.failureReportOptions",
          reason: 'must not be empty: leave failureReportOptions out for the default, ["allFail"]',
        },
      ]);
      expect(problemsOf({ ...withRuf, failureReportOptions: "1:d" })).toEqual([
        {
          property: "dmarc.failureReportOptions",
          reason: 'must be a list such as ["anyFail"], not the text "1:d"',
        },
      ]);
    });

    it("refuses options without failureReports (receivers ignore fo without ruf)", () => {
      expect(problemsOf({ policy: "none", failureReportOptions: ["anyFail"] })).toEqual([
        {
          property: "dmarc.failureReportOptions",
          reason:
            "has no effect without failureReports: receivers ignore fo when the record has no ruf (RFC 7489 §6.3)",
        },
      ]);
    });
  });

  describe("unknown settings", () => {
    it.each([
      ["polciy", "is not a DMARC setting: did you mean policy?"],
      ["Policy", "is not a DMARC setting: did you mean policy?"],
      ["percentage", "is not a DMARC setting: did you mean percent?"],
      ["aggregateReport", "is not a DMARC setting: did you mean aggregateReports?"],
      ["dkim", "is not a DMARC setting: did you mean dkimAlignment?"],
      ["p", 'is not a setting: the "p" tag is set by policy'],
      ["RUA", 'is not a setting: the "rua" tag is set by aggregateReports'],
      ["pct", 'is not a setting: the "pct" tag is set by percent'],
      ["v", `is not a setting: the record always starts with v=DMARC1; ${settings}`],
      ["version", `is not a setting: the record always starts with v=DMARC1; ${settings}`],
      ["reportInterval", `is not a DMARC setting; ${settings}`],
    ])("refuses %p, naming it", (key, reason) => {
      expect(problemsOf({ policy: "none", [key]: "x" })).toEqual([{ property: `dmarc.${key}`, reason }]);
    });

    it("names a key that is not a plain name in brackets, and refuses an unknown key set to undefined", () => {
      expect(problemsOf({ policy: "none", "sub domain": "reject", extra: undefined })).toEqual([
        { property: 'dmarc["sub domain"]', reason: `is not a DMARC setting; ${settings}` },
        { property: "dmarc.extra", reason: `is not a DMARC setting; ${settings}` },
      ]);
    });

    it("reports a typo beside the policy it leaves missing", () => {
      expect(problemsOf({ polciy: "reject" })).toEqual([
        { property: "dmarc.polciy", reason: "is not a DMARC setting: did you mean policy?" },
        { property: "dmarc.policy", reason: 'is required: one of "none", "quarantine" or "reject"' },
      ]);
    });
  });

  it("reports every bad setting at once, one problem each", () => {
    expect(
      problemsOf({
        policy: "block",
        subdomainPolicy: "Reject",
        dkimAlignment: "s",
        spfAlignment: "x",
        percent: 150,
        aggregateReports: ["dmarc@example.com"],
        failureReports: [],
        failureReportOptions: ["2"],
      }).map((problem) => problem.property),
    ).toEqual([
      "dmarc.policy",
      "dmarc.subdomainPolicy",
      "dmarc.dkimAlignment",
      "dmarc.spfAlignment",
      "dmarc.percent",
      "dmarc.aggregateReports[0]",
      "dmarc.failureReports",
      "dmarc.failureReportOptions[0]",
    ]);
  });
});

describe("parseDmarc and isDmarcRecord", () => {
  it("reads a record's tags, names lowercase, values as written", () => {
    expect(
      parseDmarc("v=DMARC1; p=Reject; RUA=mailto:a@example.com,mailto:b@example.com!10m; pct = 50 ;"),
    ).toEqual({ v: "DMARC1", p: "Reject", rua: "mailto:a@example.com,mailto:b@example.com!10m", pct: "50" });
  });

  it("reads TXT content as Cloudflare stores it (quoted, split)", () => {
    expect(parseDmarc('"v=DMARC1; p=no" "ne; sp=reject"')).toEqual({ v: "DMARC1", p: "none", sp: "reject" });
  });

  it("accepts v=DMARC1 alone (a report authorization record, RFC 7489 §7.1)", () => {
    expect(parseDmarc("v=DMARC1")).toEqual({ v: "DMARC1" });
    expect(isDmarcRecord("v=DMARC1;")).toBe(true);
  });

  it("reads the version tag in any letter case, with whitespace around it", () => {
    expect(parseDmarc("V = dmarc1 ;p=none")).toEqual({ v: "dmarc1", p: "none" });
    expect(isDmarcRecord(" \tv=DMARC1\t; p=none")).toBe(true);
  });

  it.each([
    "",
    "v=spf1 -all",
    "p=none; v=DMARC1",
    "v=DMARC2; p=none",
    "v=DMARC10; p=none",
    "v=DMARC1 p=none",
    "v=DMARC1, p=none",
    "x v=DMARC1; p=none",
    "v=DKIM1; k=rsa; p=MIGf",
    '"v=spf1 include:_spf.example.com ~all"',
  ])("is not DMARC: %p", (text) => {
    expect(parseDmarc(text)).toBeUndefined();
    expect(isDmarcRecord(text)).toBe(false);
  });

  it("is not DMARC for values that are not text (a JavaScript caller)", () => {
    expect(parseDmarc(undefined as unknown as string)).toBeUndefined();
    expect(isDmarcRecord(42 as unknown as string)).toBe(false);
  });

  it("skips pieces that are not tag=value, keeps a repeated tag's first value, keeps empty values", () => {
    expect(parseDmarc("v=DMARC1; p=none; junk; =x; 1x=y; p=reject; rua=; ; sp=quarantine")).toEqual({
      v: "DMARC1",
      p: "none",
      rua: "",
      sp: "quarantine",
    });
  });

  it("reads back what dmarcRecordContent writes", () => {
    const content = dmarcRecordContent({
      policy: "quarantine",
      subdomainPolicy: "none",
      percent: 10,
      aggregateReports: ["mailto:dmarc@example.com"],
    });
    expect(parseDmarc(content)).toEqual({
      v: "DMARC1",
      p: "quarantine",
      sp: "none",
      pct: "10",
      rua: "mailto:dmarc@example.com",
    });
    expect(Object.keys(parseDmarc(content) ?? {})).toEqual(["v", "p", "sp", "pct", "rua"]);
  });
});
