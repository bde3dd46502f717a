import fc from "fast-check";
import { quoteTxt } from "../../provider/dns/txt";
import { diagnose } from "../../provider/verification/diagnosis";
import {
  DiagnosisCase,
  DiagnosisFacts,
  ExpectedRecord,
  ServerAnswer,
} from "../../provider/verification/diagnosis-facts";
import { servesExpected } from "../../provider/verification/serves";
import { diagnosisLines, TEXT_COLUMNS } from "../../provider/verification/report-text";

const ZONE = "example.com";
const KEY = `v=DKIM1; t=s; h=sha256; p=${"A".repeat(200)}NEWKEY`;
const OLD_KEY = `v=DKIM1; t=s; h=sha256; p=${"A".repeat(200)}OLDKEY`;
const SPF = "v=spf1 a mx include:spf.postal.example ~all";

const DKIM: ExpectedRecord = {
  purpose: "dkim",
  name: "postal-ab._domainkey.mail.example.com",
  type: "TXT",
  value: KEY,
};
const SPF_RECORD: ExpectedRecord = { purpose: "spf", name: "mail.example.com", type: "TXT", value: SPF };
const RETURN_PATH: ExpectedRecord = {
  purpose: "return_path",
  name: "psrp.mail.example.com",
  type: "CNAME",
  value: "rp.postal.example",
};

const at = (server: string, ...values: string[]): ServerAnswer => ({ server, answer: { values } });
const nx = (server: string): ServerAnswer => ({ server, answer: { nxdomain: true } });
const missing = { status: "Missing", text: "No TXT records were returned" };

/** Facts with two nameservers and no zone, changed by `extra`. */
function facts(expected: ExpectedRecord, extra: Partial<DiagnosisFacts>): DiagnosisFacts {
  return { expected, authoritative: [nx("ns1"), nx("ns2")], service: missing, ...extra };
}

const CASES: [string, DiagnosisFacts, DiagnosisCase][] = [
  ["nothing at the name", facts(DKIM, {}), "not-published"],
  [
    "the zone holds it proxied",
    facts(RETURN_PATH, {
      zone: {
        name: ZONE,
        records: [{ name: RETURN_PATH.name, type: "CNAME", content: RETURN_PATH.value, proxied: true }],
      },
      authoritative: [at("ns1"), at("ns2")],
    }),
    "proxied",
  ],
  [
    "two SPF records at the name",
    facts(SPF_RECORD, {
      authoritative: [at("ns1", SPF, "v=spf1 include:other.example -all"), at("ns2", SPF)],
    }),
    "spf-other-record",
  ],
  [
    "the SPF record served needs more than 10 lookups",
    facts(SPF_RECORD, {
      authoritative: [at("ns1", SPF), at("ns2", SPF)],
      spf: { total: 12, limit: 10, problem: "SPF needs 12 DNS lookups, over the limit of 10" },
    }),
    "spf-too-many-lookups",
  ],
  [
    "an old DKIM key",
    facts(DKIM, { authoritative: [at("ns1", OLD_KEY), at("ns2", OLD_KEY)] }),
    "other-value",
  ],
  [
    "the zone holds another CNAME target",
    facts(RETURN_PATH, {
      zone: { name: ZONE, records: [{ name: RETURN_PATH.name, type: "CNAME", content: "old.example.net" }] },
    }),
    "other-value",
  ],
  [
    "the zone's name appended twice",
    facts(DKIM, {
      zone: { name: ZONE, records: [{ name: `${DKIM.name}.${ZONE}`, type: "TXT", content: quoteTxt(KEY) }] },
    }),
    "wrong-name",
  ],
  ["DNS answers at the doubled name", facts(DKIM, { doubled: [at("ns1", KEY)] }), "wrong-name"],
  // DKIM as Postal's check judges it (found by an adversarial review):
  [
    "a DKIM record without its final ';'",
    facts(DKIM, {
      authoritative: [at("ns1", ` ${KEY}; `), at("ns2", KEY)],
      service: { status: "OK", text: null },
    }),
    "ok",
  ],
  [
    "two TXT records at the DKIM name (an old key left beside the new)",
    facts(DKIM, {
      zone: {
        name: ZONE,
        records: [
          { name: DKIM.name, type: "TXT", content: quoteTxt(KEY) },
          { name: DKIM.name, type: "TXT", content: quoteTxt(OLD_KEY) },
        ],
      },
      authoritative: [at("ns1", KEY, OLD_KEY), at("ns2", KEY, OLD_KEY)],
      service: {
        status: "Invalid",
        text: "There are 2 records for at postal-ab._domainkey.mail.example.com",
      },
    }),
    "other-value",
  ],
  // A zone full of other people's records (found by an adversarial review):
  [
    "an apex with site-verification TXT records and no SPF record",
    facts(SPF_RECORD, {
      zone: {
        name: ZONE,
        records: [{ name: SPF_RECORD.name, type: "TXT", content: '"google-site-verification=abc"' }],
      },
      authoritative: [
        at("ns1", "google-site-verification=abc", "MS=ms123"),
        at("ns2", "google-site-verification=abc"),
      ],
    }),
    "not-published",
  ],
  [
    "a proxied website (A at the apex) beside a missing SPF record",
    facts(SPF_RECORD, {
      zone: {
        name: ZONE,
        records: [{ name: SPF_RECORD.name, type: "A", content: "192.0.2.1", proxied: true }],
      },
      authoritative: [at("ns1"), at("ns2")],
    }),
    "not-published",
  ],
  [
    "a wildcard CNAME answering at the doubled name",
    facts(RETURN_PATH, { doubled: [at("ns1", "www.example.com")], authoritative: [at("ns1"), at("ns2")] }),
    "not-published",
  ],
  ["1 of 2 nameservers serve it", facts(DKIM, { authoritative: [at("ns1", KEY), nx("ns2")] }), "propagating"],
  [
    "the zone holds it and no nameserver serves it yet",
    facts(DKIM, {
      zone: { name: ZONE, records: [{ name: DKIM.name, type: "TXT", content: quoteTxt(KEY) }] },
    }),
    "propagating",
  ],
  [
    "every nameserver serves it, the resolver has the old value cached",
    facts(DKIM, { authoritative: [at("ns1", KEY), at("ns2", KEY)], recursive: at("resolver", OLD_KEY) }),
    "propagating",
  ],
  [
    "DNS serves it and the service says Missing",
    facts(DKIM, { authoritative: [at("ns1", KEY), at("ns2", KEY)] }),
    "service-disagrees",
  ],
  [
    "no nameserver answers",
    facts(DKIM, {
      authoritative: [
        { server: "ns1", answer: { error: "timed out" } },
        { server: "ns2", answer: { error: "SERVFAIL" } },
      ],
    }),
    "no-answer",
  ],
  [
    "a CNAME at the DKIM name (the nameservers answer TXT with no records)",
    facts(DKIM, {
      authoritative: [at("ns1"), at("ns2")],
      cname: { server: "ns1", target: "dkim.vendor.example.net" },
    }),
    "cname",
  ],
  [
    "a wildcard serves the value where the name has records of its own",
    facts(SPF_RECORD, {
      zone: { name: ZONE, records: [] },
      authoritative: [at("ns1"), at("ns2")],
      doubled: [at("ns1", SPF)],
      wildcard: [at("ns1", SPF)],
    }),
    "wildcard",
  ],
  [
    "the include in capitals: DNS serves it, the service's case-sensitive check says Invalid",
    facts(SPF_RECORD, {
      authoritative: [
        at("ns1", SPF.replace("include:spf", "INCLUDE:SPF")),
        at("ns2", SPF.replace("include:spf", "INCLUDE:SPF")),
      ],
      service: { status: "Invalid", text: "An SPF record exists but it doesn't include spf.postal.example" },
    }),
    "spf-include-spelling",
  ],
  [
    "served everywhere and the service agrees",
    facts(DKIM, { authoritative: [at("ns1", KEY), at("ns2", KEY)], service: { status: "OK", text: null } }),
    "ok",
  ],
];

describe("diagnose", () => {
  it("says where a CNAME served at the record's name points, instead of 'no records'", () => {
    const diagnosis = diagnose(
      facts(DKIM, {
        authoritative: [at("ns1"), at("ns2")],
        cname: { server: "ns1", target: "dkim.vendor.example.net" },
      }),
    );
    expect(diagnosis.summary).toBe(
      `${DKIM.name} is a CNAME to dkim.vendor.example.net (ns1), not a TXT record: a name with a CNAME holds nothing ` +
        "else, and what the target serves is not the expected record",
    );
    expect(diagnosis.action).toBe(
      `Delete the CNAME and publish TXT ${DKIM.name} with the expected value (the domain's \`dnsRecords\` output).`,
    );
  });

  it("a wildcard answering at the doubled name is not a record published there twice", () => {
    const diagnosis = diagnose(
      facts(SPF_RECORD, {
        authoritative: [at("ns1"), at("ns2")],
        doubled: [at("ns1", SPF)],
        wildcard: [at("ns1", SPF)],
      }),
    );
    expect(diagnosis.case).toBe("wildcard");
    expect(diagnosis.summary).not.toContain("appended");
    // Without the wildcard, the doubled name's record is one published at the wrong name.
    expect(
      diagnose(
        facts(SPF_RECORD, {
          authoritative: [at("ns1"), at("ns2")],
          doubled: [at("ns1", SPF)],
          wildcard: [at("ns1")],
        }),
      ).case,
    ).toBe("wrong-name");
  });

  it("the include in other letters: write it as the service spells it, not 'run the check again later'", () => {
    const written = SPF.replace("include:spf", "INCLUDE:SPF");
    const diagnosis = diagnose(
      facts(SPF_RECORD, {
        authoritative: [at("ns1", written), at("ns2", written)],
        service: { status: "Invalid", text: "…" },
      }),
    );
    expect(diagnosis.summary).toBe(
      'the SPF record served names the service\'s include as "INCLUDE:SPF.postal.example", and the service matches ' +
        '"include:spf.postal.example" letter for letter (receivers compare without case, RFC 7208 §4.3)',
    );
    expect(diagnosis.action).toContain("Write it as include:spf.postal.example");
  });

  it("words an SPF record within 10 lookups but over another limit (void lookups) as permerror, not as 'over 10'", () => {
    const diagnosis = diagnose(
      facts(SPF_RECORD, {
        authoritative: [at("ns1", SPF), at("ns2", SPF)],
        spf: { total: 5, limit: 10, problem: "more than 2 such lookups is permerror (RFC 7208 §4.6.4)" },
      }),
    );
    expect(diagnosis).toMatchObject({
      case: "spf-too-many-lookups",
      summary: "receivers return permerror for the SPF record served (it needs 5 DNS lookups)",
    });
  });

  it.each(CASES)("%s", (_title, given, expected) => {
    const diagnosis = diagnose(given);
    expect(diagnosis.case).toBe(expected);
    expect(diagnosis.summary).not.toBe("");
    if (expected !== "ok") expect(diagnosis.action).not.toBe("");
  });

  it("says how many nameservers serve the record while it propagates", () => {
    const diagnosis = diagnose(facts(DKIM, { authoritative: [at("ns1", KEY), nx("ns2"), nx("ns3")] }));
    expect(diagnosis.summary).toContain("1 of 3 nameservers");
  });

  it("takes an SPF record the service's include was merged into as ours", () => {
    const merged = "v=spf1 include:_spf.google.com include:spf.postal.example -all";
    expect(
      diagnose(
        facts(SPF_RECORD, { authoritative: [at("ns1", merged)], service: { status: "OK", text: null } }),
      ).case,
    ).toBe("ok");
    expect(servesExpected(SPF_RECORD, "v=spf1 include:_spf.google.com -all")).toBe(false);
  });

  it("asks the resolver when no nameserver is known", () => {
    expect(diagnose(facts(DKIM, { authoritative: [], recursive: at("resolver", KEY) })).case).toBe(
      "service-disagrees",
    );
  });

  it("compares names and values as Cloudflare and resolvers do, whatever the spelling", () => {
    const spelling = fc.record({ upper: fc.boolean(), dot: fc.boolean(), quoted: fc.boolean() });
    fc.assert(
      fc.property(spelling, spelling, (name, value) => {
        const spell = (text: string, s: { upper: boolean; dot: boolean }) =>
          (s.upper ? text.toUpperCase() : text) + (s.dot ? "." : "");
        // The CNAME target and the zone's name in another spelling still match.
        const rp = { ...RETURN_PATH, name: spell(RETURN_PATH.name, name) };
        const served = diagnose(
          facts(rp, {
            authoritative: [at("ns1", spell(RETURN_PATH.value, value))],
            service: { status: "OK", text: null },
          }),
        );
        const zoneText = value.quoted ? quoteTxt(KEY) : KEY;
        const held = diagnose(
          facts(
            { ...DKIM, name: spell(DKIM.name, name) },
            {
              zone: {
                name: ZONE,
                records: [{ name: spell(DKIM.name, value), type: "txt", content: zoneText }],
              },
            },
          ),
        );
        return served.case === "ok" && held.case === "propagating";
      }),
    );
  });

  it("never mistakes another DKIM key for the expected one", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (suffix) => {
        fc.pre(suffix !== "NEWKEY");
        // Spliced, not replace()d: a suffix such as "$&" is text, not a replacement pattern.
        const other = KEY.slice(0, -"NEWKEY".length) + suffix;
        return diagnose(facts(DKIM, { authoritative: [at("ns1", other)] })).case === "other-value";
      }),
    );
  });
});

describe("diagnosisLines", () => {
  it("fits every line of every case in 80 columns, and names the case", () => {
    for (const [, given] of CASES) {
      const lines = diagnosisLines("DKIM", given, diagnose(given));
      for (const line of lines) expect([...line].length).toBeLessThanOrEqual(TEXT_COLUMNS);
      expect(lines[0]).toMatch(/^ {2}DKIM: /);
    }
  });

  it("keeps the ends of two keys, where they differ", () => {
    const given = facts(DKIM, { authoritative: [at("ns1", OLD_KEY)] });
    const text = diagnosisLines("DKIM", given, diagnose(given)).join("\n");
    expect(text).toContain("NEWKEY");
    expect(text).toContain("OLDKEY");
  });
});
