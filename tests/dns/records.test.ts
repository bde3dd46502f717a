import { cloudflareRecordArgs, recordResourceName, ttlProblem, zoneIdProblem } from "../../provider/dns";

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

describe("ttlProblem", () => {
  it.each([1, 60, 300, 86400])("accepts %i", (ttl) => expect(ttlProblem(ttl)).toBeUndefined());
  it.each([0, 30, 59, 86401, 300.5])("refuses %i", (ttl) =>
    expect(ttlProblem(ttl)).toBe(
      `must be 1 (automatic) or a whole number of seconds from 60 to 86400, not ${ttl}`,
    ),
  );
});

describe("zoneIdProblem", () => {
  it("accepts Cloudflare's 32 hex digits", () =>
    expect(zoneIdProblem("023e105f4ecef8ad9ca31a8372d0c353")).toBeUndefined());
  it.each([
    "replace-me-with-your-zone-id",
    "example.com",
    "023E105F4ECEF8AD9CA31A8372D0C353",
    "023e105f4ecef8ad9ca31a8372d0c35",
    "",
  ])("refuses %j, naming what it got and where the id is", (zoneId) =>
    expect(zoneIdProblem(zoneId)).toBe(
      "must be the zone's id, 32 hex digits (Cloudflare dashboard → the zone → Overview → Zone ID), " +
        `not ${JSON.stringify(zoneId)}`,
    ),
  );
});

describe("recordResourceName", () => {
  it("names records by purpose so they stay stable", () => {
    expect(recordResourceName("mail", "return_path")).toBe("mail-return-path");
    expect(recordResourceName("mail", "mx", 1)).toBe("mail-mx-1");
  });
});
