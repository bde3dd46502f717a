import { doctorReport, doctorTable, wrap } from "../../src/doctor/report";
import type { DomainCheck } from "../../src/client";

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
});
