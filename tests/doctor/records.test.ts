import { atOrUnder, readRecords, RecordsError } from "../../src/doctor/records";

/** The records the doctor reads (`--records`): a Domain's dnsRecords, or `pulumi stack output --json`. */

const DOMAIN = "mail.example.com";
const SPF = {
  purpose: "spf",
  type: "TXT",
  name: "mail.example.com",
  content: "v=spf1 a mx include:spf.postal.example -all",
};
const MX = {
  purpose: "mx",
  type: "MX",
  name: "mail.example.com",
  content: "mx.postal.example",
  priority: 10,
};
const OTHER = { purpose: "spf", type: "TXT", name: "other.example.com", content: "v=spf1 -all" };

const read = (value: unknown) => readRecords(JSON.stringify(value), "records.json", DOMAIN);

describe("readRecords", () => {
  it("reads a Domain's dnsRecords as exported (an array), priority kept", () => {
    expect(read([SPF, MX])).toEqual([SPF, MX]);
  });

  it("reads the service's own naming (value for content)", () => {
    const { content, ...rest } = SPF;
    expect(read([{ ...rest, value: content }])).toEqual([SPF]);
  });

  it("reads `pulumi stack output --json`: the arrays of records among the outputs, others passed over", () => {
    const outputs = {
      domainId: 12,
      uuid: "0b7e",
      token: "[secret]",
      routes: ["support"],
      mail: [SPF, MX],
      other: [OTHER],
      nested: { dnsRecords: [SPF] },
    };
    expect(read(outputs)).toEqual([SPF, MX]);
  });

  it("keeps the records at the domain or under it, as names compare (case, final dot)", () => {
    const dkim = {
      purpose: "dkim",
      type: "TXT",
      name: "Postal-AB._domainkey.MAIL.example.com.",
      content: "v=DKIM1; p=x",
    };
    expect(read([SPF, dkim, OTHER])).toEqual([SPF, dkim]);
    expect(atOrUnder("notmail.example.com", DOMAIN)).toBe(false);
  });

  it.each([
    ["not JSON", "{", /^--records records\.json: not JSON \(/],
    ["neither shape", "12", /expected an array of records .* not number 12$/],
    ["no output holds records", '{"a":"b"}', /no output is an array of records/],
    [
      "a record without content",
      JSON.stringify([{ purpose: "spf", type: "TXT", name: DOMAIN }]),
      /\[0\] has no content/,
    ],
    [
      "a record without a name",
      JSON.stringify([SPF, { purpose: "mx", type: "MX", content: "x" }]),
      /\[1\] has no name/,
    ],
    ["a priority as text", JSON.stringify([{ ...MX, priority: "10" }]), /\[0\]\.priority must be a number/],
    ["an item that is no record", JSON.stringify([SPF, "x"]), /\[1\] must be a record/],
    [
      "a bad record in an output",
      JSON.stringify({ mail: [SPF, { purpose: "mx" }] }),
      /output "mail" \[1\] has no type/,
    ],
    [
      "none at the domain",
      JSON.stringify([OTHER]),
      /none of its 1 records is at mail\.example\.com or under it \(names: other\.example\.com\)/,
    ],
  ])("one error naming the file and what is wrong: %s", (_what, json, message) => {
    expect(() => readRecords(json, "records.json", DOMAIN)).toThrow(RecordsError);
    expect(() => readRecords(json, "records.json", DOMAIN)).toThrow(message);
  });
});
