import { atOrUnder, domainRecords, readRecords, RecordsError } from "../../provider/doctor/records";

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

/** What the doctor reads and keeps for DOMAIN. */
const read = (value: unknown) =>
  domainRecords(readRecords(JSON.stringify(value), "records.json"), "records.json", DOMAIN);

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
    const keep = () => domainRecords(readRecords(json, "records.json"), "records.json", DOMAIN);
    expect(keep).toThrow(RecordsError);
    expect(keep).toThrow(message);
  });
});

describe("domainRecords: the domain's own records, in a file of many domains", () => {
  const domain = (name: string) => [
    { purpose: "spf", type: "TXT", name, content: "v=spf1 include:spf.postal.example ~all" },
    { purpose: "dkim", type: "TXT", name: `postal-AB._domainkey.${name}`, content: "v=DKIM1; p=x" },
    { purpose: "return_path", type: "CNAME", name: `psrp.${name}`, content: "rp.postal.example" },
    { purpose: "mx", type: "MX", name, content: "mx1.postal.example", priority: 10 },
    { purpose: "dmarc", type: "TXT", name: `_dmarc.${name}`, content: "v=DMARC1; p=none" },
  ];

  it("keeps the domain's return path and DMARC record, and leaves out the domains under it", () => {
    const own = domain("example.com");
    const found = [...domain("a.example.com"), ...own, ...domain("b.a.example.com"), ...domain("other.net")];
    expect(domainRecords(found, "outputs.json", "example.com")).toEqual(own);
    expect(domainRecords(found, "outputs.json", "a.example.com")).toEqual(domain("a.example.com"));
  });

  it("tells a domain under another one by its DKIM key alone", () => {
    const dkimOnly = domain("b.example.com").filter(
      (record) => record.purpose !== "spf" && record.purpose !== "mx",
    );
    expect(domainRecords([...domain("example.com"), ...dkimOnly], "f", "example.com")).toEqual(
      domain("example.com"),
    );
  });

  it("says so when every record under the domain is another domain's", () => {
    expect(() => domainRecords(domain("a.example.com"), "f", "example.com")).toThrow(
      /none of its 5 records is example\.com's own: those under it are other domains' \(names: a\.example\.com, /,
    );
  });

  it("keeps a domain's records among 20,000 of 4,000 domains under it", () => {
    const found = Array.from({ length: 4000 }, (_, i) => domain(`d${i}.example.com`)).flat();
    expect(domainRecords([...found, ...domain("example.com")], "f", "example.com")).toEqual(
      domain("example.com"),
    );
  });
});
