import { doctorReport, doctorTable, wrap } from "../../src/doctor/report";
import type { DomainCheck } from "../../src/client";
import { diagnose } from "../../src/verification/diagnosis";
import { type DiagnosisFacts } from "../../src/verification/diagnosis-facts";

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
    expect(wrap("aa bb cc", 5)).toEqual(["aa bb", "cc"]);
    expect(wrap("abcdefgh", 3)).toEqual(["abc", "def", "gh"]);
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
    const report = doctorReport("mail.example.com", failing, [{ check: "dkim", ...found, facts }]);
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
