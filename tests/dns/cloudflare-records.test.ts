import { cloudflareRecordArgs, recordResourceName } from "../../provider/dns";

describe("cloudflareRecordArgs", () => {
  const options = { zoneId: "z", ttl: 300, comment: "pulumi proj/staging: email dkim" };

  it("quotes TXT content and lowercases the name (Cloudflare stores names lowercase)", () => {
    expect(
      cloudflareRecordArgs(
        {
          purpose: "dkim",
          type: "TXT",
          name: "postal-ABCDEF._domainkey.Mail.example.com",
          content: "v=DKIM1; p=AB;",
        },
        options,
      ),
    ).toEqual({
      zoneId: "z",
      name: "postal-abcdef._domainkey.mail.example.com",
      type: "TXT",
      content: '"v=DKIM1; p=AB;"',
      ttl: 300,
      proxied: false,
      comment: "pulumi proj/staging: email dkim",
    });
  });

  it("gives MX records their priority, and lowercases host targets", () => {
    expect(
      cloudflareRecordArgs(
        {
          purpose: "mx",
          type: "mx",
          name: "mail.example.com.",
          content: "MX1.Postal.example.com",
          priority: 10,
        },
        options,
      ),
    ).toMatchObject({
      name: "mail.example.com",
      type: "MX",
      content: "mx1.postal.example.com",
      priority: 10,
    });
    expect(
      cloudflareRecordArgs(
        {
          purpose: "return_path",
          type: "CNAME",
          name: "psrp.mail.example.com",
          content: "RP.postal.example.com",
        },
        options,
      ),
    ).toEqual(expect.not.objectContaining({ priority: expect.anything() }));
  });
});

describe("recordResourceName", () => {
  it("names records by purpose so they stay stable", () => {
    expect(recordResourceName("mail", "return_path")).toBe("mail-return-path");
    expect(recordResourceName("mail", "mx", 1)).toBe("mail-mx-1");
  });
});
