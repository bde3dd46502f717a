import { printableLines } from "../../provider/doctor/printing";
import {
  doctorReport,
  doctorTable,
  NOT_SERVED_HEADING,
  type DoctorDiagnosis,
} from "../../provider/doctor/report";
import { wrap } from "../../provider/verification/report-text";
import type { DomainCheck } from "../../provider/client";
import { diagnose } from "../../provider/verification/diagnosis";
import { type DiagnosisFacts } from "../../provider/verification/diagnosis-facts";

const failing: DomainCheck = {
  spfStatus: "OK",
  spfError: null,
  dkimStatus: "Missing",
  dkimError:
    "No TXT records were returned for postal-EHIHEM._domainkey.a-rather-long-subdomain.mail.example.com and so on",
  mxStatus: "Missing",
  mxError: "There are no MX records for mail.example.com",
  returnPathStatus: "OK",
  returnPathError: null,
};

describe("the doctor's report", () => {
  it("passes only when the service found every check OK", () => {
    expect(doctorReport("mail.example.com", failing).passed).toBe(false);
    const ok = { ...failing, dkimStatus: "OK", dkimError: null, mxStatus: "OK", mxError: null };
    expect(doctorReport("mail.example.com", ok).passed).toBe(true);
    expect(doctorReport("mail.example.com", undefined)).toMatchObject({ found: false, passed: false });
  });

  it("fits 80 columns, the service's text wrapped in its column", () => {
    const table = doctorTable(doctorReport("mail.example.com", failing));
    for (const line of table.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
    expect(table).toContain("2 of 4 checks failing");
    // Every word of it is there (a name longer than the column is cut across lines).
    expect(table.replace(/\s+/g, "")).toContain(failing.dkimError!.replace(/\s+/g, ""));
  });

  it("wraps words, cutting only a word longer than a line", () => {
    expect(wrap("aa bb cc", "", 5)).toEqual(["aa bb", "cc"]);
    expect(wrap("abcdefgh", "", 3)).toEqual(["abc", "def", "gh"]);
    expect(wrap("aa bb cc", "  ", 7)).toEqual(["  aa bb", "  cc"]);
  });

  it("puts each failing check's diagnosis under the table: case, summary, expected, each server, within 80 columns", () => {
    const key = `v=DKIM1; t=s; h=sha256; p=${"MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ".repeat(5)}IDAQAB`;
    const facts: DiagnosisFacts = {
      expected: { purpose: "dkim", type: "TXT", name: "postal-ab._domainkey.mail.example.com", value: key },
      authoritative: [
        { server: "127.0.0.1:7753", answer: { values: [key] } },
        { server: "127.0.0.1:7754", answer: { nxdomain: true } },
      ],
      service: { status: "Missing", text: failing.dkimError },
    };
    const found = diagnose(facts);
    expect(found.case).toBe("propagating");
    const report = doctorReport("mail.example.com", failing, [
      { check: "dkim", ...found, facts, notServed: [] },
    ]);
    const table = doctorTable(report);
    for (const line of table.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
    expect(table).toContain("What DNS serves, check by check:\n  DKIM: still propagating");
    expect(table).toContain("127.0.0.1:7754: NXDOMAIN");
    expect(table).toMatch(/expected +TXT postal-ab\._domainkey\.mail\.example\.com/);
  });

  it("says why there is no diagnosis when it failed, the service's table kept", () => {
    const table = doctorTable(doctorReport("mail.example.com", failing, [], "a DNS server refused"));
    expect(table).toMatch(/DKIM +Missing/);
    expect(table).toContain("The records could not be diagnosed: a DNS server refused");
  });
});

/** What a terminal acts on or reorders by: C0 and C1 controls (a line break aside), DEL, bidi controls. */
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe("what the doctor prints is escaped", () => {
  // A clear screen, an OSC 8 link, a C1 CSI (0x9b), a right-to-left override, an isolate.
  const hostile =
    "\u001b[2J\u001b]8;;https://evil.example/\u0007here\u001b]8;;\u0007 \u009b31m \u202eevil\u2066";
  const key = `v=DKIM1; p=${"MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ".repeat(5)}IDAQAB`;
  const row: DoctorDiagnosis = {
    check: "dkim",
    case: "other-value",
    summary: `TXT postal-ab._domainkey.mail.example.com exists with another value ${hostile}`,
    action: `Replace it ${hostile}`,
    facts: {
      expected: {
        purpose: "dkim",
        type: "TXT",
        name: `postal-ab._domainkey.mail.example.com${hostile}`,
        value: key,
      },
      authoritative: [
        { server: "127.0.0.1:7753", answer: { values: [`v=DKIM1; p=old${hostile}`] } },
        { server: `127.0.0.1:7754${hostile}`, answer: { error: hostile } },
      ],
      service: { status: "Invalid", text: hostile },
    },
    notServed: [
      { type: "TXT", name: `postal-ab._domainkey.mail.example.com${hostile}`, content: `${key}${hostile}` },
    ],
  };
  const report = doctorReport(
    `mail.example.com${hostile}`,
    { ...failing, dkimStatus: `Invalid${hostile}`, dkimError: `The DKIM record ${hostile} does not match` },
    [row],
    `a DNS server said ${hostile}`,
    { error: `timed out ${hostile}` },
  );

  it("in the table: the service's texts, the names, what DNS serves, the errors; within 80 columns", () => {
    const table = doctorTable(report);
    expect(table).not.toMatch(UNSAFE);
    expect(table).toContain("\\u001b[2J");
    expect(table).toContain("\\u009b31m");
    expect(table).toContain("\\u202eevil\\u2066");
    const [shown] = table.split(`\n${NOT_SERVED_HEADING}\n`);
    expect(shown.split("\n").filter((line) => [...line].length > 80)).toEqual([]);
  });

  it("in --json: no such character is printed, and the document still reads back as the report", () => {
    const json = printableLines(JSON.stringify(report, null, 2));
    expect(json).not.toMatch(UNSAFE);
    expect(json).toContain("\\u202e");
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(report)));
  });

  it("in the table, for a domain the service does not have", () => {
    expect(doctorTable(doctorReport(`x${hostile}.example.com`, undefined))).not.toMatch(UNSAFE);
  });
});

describe("the records not served, whole", () => {
  it("prints each value whole and unwrapped on a line of its own, and every MX host with its priority", () => {
    const key = `v=DKIM1; t=s; h=sha256; p=${"MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ".repeat(6)}IDAQAB;`;
    const facts: DiagnosisFacts = {
      expected: { purpose: "mx", type: "MX", name: "mail.example.com", value: "mx1.postal.example.com" },
      authoritative: [{ server: "127.0.0.1:7753", answer: { nxdomain: true } }],
      service: { status: "Missing", text: "There are no MX records for mail.example.com" },
    };
    const mx: DoctorDiagnosis = {
      check: "mx",
      ...diagnose(facts),
      facts,
      notServed: [
        { type: "MX", name: "mail.example.com", content: "mx1.postal.example.com", priority: 10 },
        { type: "MX", name: "mail.example.com", content: "mx2.postal.example.com", priority: 20 },
      ],
    };
    const dkim: DoctorDiagnosis = {
      ...mx,
      check: "dkim",
      notServed: [{ type: "TXT", name: "postal-ab._domainkey.mail.example.com", content: key }],
    };
    const lines = doctorTable(doctorReport("mail.example.com", failing, [dkim, mx])).split("\n");
    const block = lines.slice(lines.indexOf(NOT_SERVED_HEADING) + 1);
    expect(block).toEqual([
      "  DKIM: TXT postal-ab._domainkey.mail.example.com",
      key,
      "  MX: MX mail.example.com, priority 10",
      "mx1.postal.example.com",
      "  MX: MX mail.example.com, priority 20",
      "mx2.postal.example.com",
    ]);
  });

  it("prints no such block when every record is served", () => {
    expect(doctorTable(doctorReport("mail.example.com", failing))).not.toContain(NOT_SERVED_HEADING);
  });
});
