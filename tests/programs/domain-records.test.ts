import { laterRecords, recordsKnownUpFront } from "../../provider/resources/publishing/domain-records";
import { returnPathPrefixSetting, spfIncludeSetting } from "../../provider/resources/publishing/stack-config";

/** The pure parts of a Domain's publishing: which records, named how, and the stack config it reads. */
describe("recordsKnownUpFront", () => {
  it("gives SPF and MX at the name, the return path at the prefix and DMARC with its content", () => {
    expect(recordsKnownUpFront("mail.example.com", "psrp", { mx: true, dmarc: "v=DMARC1; p=none" })).toEqual([
      { purpose: "spf", name: "mail.example.com", type: "TXT" },
      { purpose: "return_path", name: "psrp.mail.example.com", type: "CNAME" },
      { purpose: "mx", name: "mail.example.com", type: "MX" },
      { purpose: "dmarc", name: "_dmarc.mail.example.com", type: "TXT", content: '"v=DMARC1; p=none"' },
    ]);
  });

  it("leaves MX out of a sending-only domain and DMARC out when none is asked for", () => {
    expect(recordsKnownUpFront("example.com", "rp", { mx: false }).map((record) => record.purpose)).toEqual([
      "spf",
      "return_path",
    ]);
  });
});

describe("laterRecords", () => {
  const mx = (content: string) => ({ purpose: "mx", type: "MX", name: "example.com", content, priority: 10 });

  it("numbers MX records by content, so a second mail host does not rename the first", () => {
    const named = laterRecords("mail", [mx("mx2.service.test"), mx("mx1.service.test")], []);
    expect(named.map(({ resourceName, record }) => [resourceName, record.content])).toEqual([
      ["mail-mx-0", "mx1.service.test"],
      ["mail-mx-1", "mx2.service.test"],
    ]);
    expect(laterRecords("mail", [mx("mx1.service.test")], []).map((r) => r.resourceName)).toEqual([
      "mail-mx-0",
    ]);
  });

  it("skips the purposes declared already, and names a purpose the service adds by its name", () => {
    const answer = [
      { purpose: "spf", type: "TXT", name: "example.com", content: "v=spf1 -all" },
      { purpose: "track_domain", type: "CNAME", name: "track.example.com", content: "t.service.test" },
    ];
    expect(laterRecords("mail", answer, ["spf"]).map((r) => r.resourceName)).toEqual(["mail-track-domain"]);
  });
});

describe("the stack config publishing reads", () => {
  it("takes one lowercase label as the return-path prefix, psrp when not set", () => {
    expect(returnPathPrefixSetting(undefined)).toBe("psrp");
    expect(returnPathPrefixSetting("bounce")).toBe("bounce");
    expect(() => returnPathPrefixSetting("Bounce.mail")).toThrow(
      /emailDelivery:returnPathPrefix must be one DNS label in lowercase .* not "Bounce.mail"/,
    );
  });

  it("takes a domain name as the SPF include, lowercased without its final dot", () => {
    expect(spfIncludeSetting(undefined)).toBeUndefined();
    expect(spfIncludeSetting("")).toBeUndefined();
    expect(spfIncludeSetting("SPF.Postal.Example.com.")).toBe("spf.postal.example.com");
    expect(() => spfIncludeSetting("include:spf.example.com")).toThrow(
      /emailDelivery:spfInclude must be your installation's SPF include/,
    );
  });
});
