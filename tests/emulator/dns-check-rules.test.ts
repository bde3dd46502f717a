import { DnsAnswers, DnsCheckExpectation, evaluateDnsCheck } from "../../emulator/email-api";
import { ALL_CHECKS_OK } from "../support/checks";

/** Postal's domain DNS check rules (`app/models/concerns/has_dns_checks.rb`), one branch per test. */

const DKIM_HOST = "postal-ABCDEF._domainkey.example.com";
const DKIM_RECORD = "v=DKIM1; t=s; h=sha256; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC7;";

const expected: DnsCheckExpectation = {
  domain: "example.com",
  spfInclude: "spf.postal.example.com",
  dkimHost: DKIM_HOST,
  dkimRecord: DKIM_RECORD,
  mxRecords: ["mx1.postal.example.com", "mx2.postal.example.com"],
  returnPathHost: "psrp.example.com",
  returnPathDomain: "rp.postal.example.com",
};

const good: DnsAnswers = {
  apexTxt: ["google-site-verification=abc", "v=spf1 a mx include:spf.postal.example.com ~all"],
  dkimTxt: [DKIM_RECORD],
  mxExchanges: ["mx1.postal.example.com", "mx2.postal.example.com"],
  returnPathCnames: ["rp.postal.example.com"],
};

const check = (changes: Partial<DnsAnswers>, expectation: Partial<DnsCheckExpectation> = {}) =>
  evaluateDnsCheck({ ...expected, ...expectation }, { ...good, ...changes });

describe("evaluateDnsCheck", () => {
  test("everything published: all OK, errors null", () => {
    expect(check({})).toEqual(ALL_CHECKS_OK);
  });

  test("nothing published: all Missing with Postal's texts", () => {
    expect(check({ apexTxt: [], dkimTxt: [], mxExchanges: [], returnPathCnames: [] })).toEqual({
      spfStatus: "Missing",
      spfError: "No SPF record exists for this domain",
      dkimStatus: "Missing",
      dkimError: `No TXT records were returned for ${DKIM_HOST}`,
      mxStatus: "Missing",
      mxError: "There are no MX records for example.com",
      returnPathStatus: "Missing",
      returnPathError: "There is no return path record at psrp.example.com",
    });
  });

  describe("SPF", () => {
    test("TXT records but none starting with v=spf1: Missing", () => {
      const result = check({ apexTxt: ["hello", " x v=spf1 include:spf.postal.example.com"] });
      expect([result.spfStatus, result.spfError]).toEqual([
        "Missing",
        "No SPF record exists for this domain",
      ]);
    });

    test("SPF without our include: Invalid", () => {
      const result = check({ apexTxt: ["v=spf1 a mx include:_spf.google.com ~all"] });
      expect([result.spfStatus, result.spfError]).toEqual([
        "Invalid",
        "An SPF record exists but it doesn't include spf.postal.example.com",
      ]);
    });

    test("whitespace after include: is allowed, and it is a substring match", () => {
      expect(check({ apexTxt: ["v=spf1 include:   spf.postal.example.com -all"] }).spfStatus).toBe("OK");
      expect(check({ apexTxt: ["v=spf1 include:spf.postal.example.com.evil ~all"] }).spfStatus).toBe("OK");
    });

    test("the include host is matched literally (dots are not wildcards)", () => {
      expect(check({ apexTxt: ["v=spf1 include:spfXpostalXexampleXcom ~all"] }).spfStatus).toBe("Invalid");
    });

    test("one good SPF record among several is enough; leading spaces are stripped", () => {
      const result = check({ apexTxt: ["v=spf1 -all", "  v=spf1 include:spf.postal.example.com ~all"] });
      expect(result.spfStatus).toBe("OK");
    });
  });

  describe("DKIM", () => {
    test("two TXT records: Invalid with Postal's 'for at' wording (count before content)", () => {
      const result = check({ dkimTxt: [DKIM_RECORD, DKIM_RECORD] });
      expect([result.dkimStatus, result.dkimError]).toEqual([
        "Invalid",
        `There are 2 records for at ${DKIM_HOST}. There should only be one.`,
      ]);
    });

    test("a different key: Invalid", () => {
      const result = check({ dkimTxt: ["v=DKIM1; t=s; h=sha256; p=SOMETHINGELSE;"] });
      expect([result.dkimStatus, result.dkimError]).toEqual([
        "Invalid",
        `The DKIM record at ${DKIM_HOST} does not match the record we have provided. Please check it has been copied correctly.`,
      ]);
    });

    test("the trailing ; may be left out, surrounding whitespace is ignored", () => {
      expect(check({ dkimTxt: [`  ${DKIM_RECORD.slice(0, -1)}  `] }).dkimStatus).toBe("OK");
    });

    test("the comparison is exact otherwise (case, spacing)", () => {
      expect(check({ dkimTxt: [DKIM_RECORD.replace("v=DKIM1", "v=dkim1")] }).dkimStatus).toBe("Invalid");
      expect(check({ dkimTxt: [DKIM_RECORD.replace("; t=s", ";t=s")] }).dkimStatus).toBe("Invalid");
    });
  });

  describe("MX", () => {
    test("only foreign MX records: Missing", () => {
      const result = check({ mxExchanges: ["aspmx.l.google.com"] });
      expect([result.mxStatus, result.mxError]).toEqual([
        "Missing",
        "You have MX records but none of them point to us.",
      ]);
    });

    test("one of two missing: Invalid, singular 'record'", () => {
      const result = check({ mxExchanges: ["mx1.postal.example.com", "aspmx.l.google.com"] });
      expect([result.mxStatus, result.mxError]).toEqual([
        "Invalid",
        "MX record for mx2.postal.example.com are missing and are required.",
      ]);
    });

    test("two of three missing: plural, Rails sentence", () => {
      const result = check(
        { mxExchanges: ["mx1.postal.example.com"] },
        { mxRecords: ["mx1.postal.example.com", "mx2.postal.example.com", "mx3.postal.example.com"] },
      );
      expect(result.mxError).toBe(
        "MX records for mx2.postal.example.com and mx3.postal.example.com are missing and are required.",
      );
    });

    test("three missing of four: 'a, b, and c'", () => {
      const result = check(
        { mxExchanges: ["a.example.net"] },
        { mxRecords: ["a.example.net", "b", "c", "d"] },
      );
      expect(result.mxError).toBe("MX records for b, c, and d are missing and are required.");
    });

    test("case is ignored, foreign extras are allowed, priority plays no part", () => {
      const result = check({
        mxExchanges: ["MX2.Postal.Example.COM", "backup.example.org", "mx1.postal.example.com"],
      });
      expect([result.mxStatus, result.mxError]).toEqual(["OK", null]);
    });
  });

  describe("return path", () => {
    test("a CNAME to somewhere else: Invalid", () => {
      const result = check({ returnPathCnames: ["rp.other.example.net"] });
      expect([result.returnPathStatus, result.returnPathError]).toEqual([
        "Invalid",
        "There is a CNAME record at psrp.example.com but it points to rp.other.example.net which is incorrect. It should point to rp.postal.example.com.",
      ]);
    });

    test("the looked-up name is lower-cased before comparing and in the message", () => {
      expect(check({ returnPathCnames: ["RP.Postal.Example.com"] }).returnPathStatus).toBe("OK");
      expect(check({ returnPathCnames: ["RP.OTHER.net"] }).returnPathError).toContain(
        "points to rp.other.net which",
      );
    });

    test("the configured target is compared as given", () => {
      const result = check({}, { returnPathDomain: "RP.postal.example.com" });
      expect(result.returnPathStatus).toBe("Invalid");
    });

    test("more than one CNAME: Invalid, naming the first", () => {
      const result = check({ returnPathCnames: ["rp.postal.example.com", "x.example.net"] });
      expect(result.returnPathStatus).toBe("Invalid");
      expect(result.returnPathError).toContain("it points to rp.postal.example.com which is incorrect");
    });
  });

  test("each check is independent of the others", () => {
    const result = check({ apexTxt: [], mxExchanges: ["aspmx.l.google.com"] });
    expect([result.spfStatus, result.dkimStatus, result.mxStatus, result.returnPathStatus]).toEqual([
      "Missing",
      "OK",
      "Missing",
      "OK",
    ]);
  });
});
