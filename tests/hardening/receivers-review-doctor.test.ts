import { judgeReceivers, serviceMail } from "../../provider/receivers";
import { doctorReport, doctorTable } from "../../provider/doctor/report";
import { receiversMessage } from "../../provider/verification/receivers-report";
import { ALL_CHECKS_OK } from "../support/checks";
import { DnsTable, publishedAsAsked, serviceRecords, tableResolver } from "../support/receivers-world";

/**
 * Adversarial review of what the doctor and the wait print of receivers' judgement: every line
 * within 80 columns (report.ts promises it), nothing a zone or a third party serves printed raw
 * (a TXT record is anyone's text: control characters would reach a terminal or a CI log as is).
 */

async function judged(domain: string, table: DnsTable, failing: string[] = []) {
  return judgeReceivers(serviceMail(serviceRecords(domain))!, tableResolver(table, failing));
}

// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

describe("the doctor's table with receivers' findings", () => {
  it("keeps every line within 80 columns for a long domain whose DKIM lookup failed", async () => {
    const domain = "notifications-and-receipts.customer-portal.example.com";
    const judgement = await judged(domain, publishedAsAsked(domain), [`postal-abc123._domainkey.${domain}`]);
    const table = doctorTable(doctorReport(domain, ALL_CHECKS_OK, [], undefined, { judgement }));
    const wide = table.split("\n").filter((line) => [...line].length > 80);
    expect(wide).toEqual([]);
  });

  it("prints no control character a served SPF record holds (an ANSI escape in a third party's include)", async () => {
    const domain = "mail.example.com";
    const table = publishedAsAsked(domain, {
      [domain]: { TXT: ["v=spf1 include:_spf.vendor.example.net include:spf.postal.example.com ~all"] },
      "_spf.vendor.example.net": { TXT: ["v=spf1 include:x\u001b[2J\u001b[31mOK.example.net ~all"] },
    });
    const judgement = await judged(domain, table);
    expect(judgement.spf).toBe("fail"); // permerror: the vendor's record does not parse
    const text = doctorTable(doctorReport(domain, ALL_CHECKS_OK, [], undefined, { judgement }));
    expect(text).not.toMatch(CONTROL);
    // The wait's failure (a Pulumi error, CI logs) prints the same findings.
    expect(receiversMessage(domain, { receivers: judgement, receiversAccepted: false })).not.toMatch(CONTROL);
  });

  it("held: exit status: receivers not judged (an error) is not a pass", () => {
    const report = doctorReport("mail.example.com", ALL_CHECKS_OK, [], undefined, { error: "timed out" });
    expect(report.passed).toBe(false);
    expect(report.receivers?.accepted).toBeNull();
  });
});
