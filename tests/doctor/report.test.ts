import { DoctorUsageError, doctorOptions } from "../../src/doctor/options";
import { doctorReport, doctorTable, wrap } from "../../src/doctor/report";
import type { DomainCheck } from "../../src/client";

const KEY = "SecretKey0123456789abcd";
const ENV = { EMAIL_DELIVERY_BASE_URL: "http://127.0.0.1:7700", EMAIL_DELIVERY_API_KEY: KEY };

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

describe("the doctor's options", () => {
  it("reads the providers' variables; a flag overrides each", () => {
    expect(doctorOptions(["doctor", "mail.example.com"], ENV)).toMatchObject({
      domain: "mail.example.com",
      baseUrl: ENV.EMAIL_DELIVERY_BASE_URL,
      apiKey: KEY,
      json: false,
      apiKeyFromFlag: false,
    });
    expect(
      doctorOptions(
        ["doctor", "m.example.com", "--base-url", "http://127.0.0.1:1", "--api-key", "Other"],
        ENV,
      ),
    ).toMatchObject({ baseUrl: "http://127.0.0.1:1", apiKey: "Other", apiKeyFromFlag: true });
  });

  it.each([
    [[], "no command"],
    [["doctor"], "no domain"],
    [["doctor", "a.example.com", "b.example.com"], "one domain at a time"],
    [["doctor", "a.example.com", "--colour"], "--colour"],
    [["doctor", "a.example.com", "--dns", "localhost:53"], "--dns"],
    [["doctor", "a.example.com", "--base-url", "ftp://x"], "not an http(s) URL"],
  ])("%j is a usage error naming why", (args, reason) => {
    expect(() => doctorOptions(args, ENV)).toThrow(DoctorUsageError);
    expect(() => doctorOptions(args, ENV)).toThrow(reason);
  });

  it("names the missing setting's variable and flag", () => {
    expect(() => doctorOptions(["doctor", "a.example.com"], {})).toThrow(
      "no base URL: set EMAIL_DELIVERY_BASE_URL, or pass --base-url",
    );
    expect(() => doctorOptions(["doctor", "a.example.com"], { EMAIL_DELIVERY_BASE_URL: "http://x" })).toThrow(
      "no API key: set EMAIL_DELIVERY_API_KEY, or pass --api-key",
    );
  });
});
