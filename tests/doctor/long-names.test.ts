import { doctorReport, doctorTable } from "../../provider/doctor/report";
import { ALL_CHECKS_OK } from "../support/checks";

/** The doctor's table in 80 columns with a long (valid) domain name. */
describe("the doctor's table with a long domain name", () => {
  it("every line fits 80 columns, the heading too", () => {
    const domain =
      "an-unusually-long-subdomain-label-for-the-eighty-column-doctor.mail-systems-of-a-company.example.com";
    const table = doctorTable(
      doctorReport(domain, {
        ...ALL_CHECKS_OK,
        spfStatus: "Missing",
        spfError: "No SPF record exists for this domain",
      }),
    );
    const long = table.split("\n").filter((line) => [...line].length > 80);
    expect(long).toEqual([]);
  });
});
