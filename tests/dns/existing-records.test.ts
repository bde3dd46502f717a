import { claimFor } from "../../provider/dns/existing-records";
import type { ExistingRecord, PlannedRecord } from "../../provider/dns/zone-records";
import { quoteTxt } from "../../provider/dns/txt";

/** The rules for records a zone already holds, one situation at a time. */
const me = { project: "mail", stack: "prod" };
let ids = 0;
const record = (
  fields: Partial<ExistingRecord> & Pick<ExistingRecord, "type" | "content">,
): ExistingRecord => ({
  id: `r${++ids}`,
  name: "example.com",
  comment: null,
  ...fields,
});
const txt = (content: string, fields: Partial<ExistingRecord> = {}) =>
  record({ type: "TXT", content: quoteTxt(content), ...fields });
const SERVICE_SPF = quoteTxt("v=spf1 a mx include:spf.postal.example.com ~all");
const spf: PlannedRecord = { purpose: "spf", name: "example.com", type: "TXT", content: SERVICE_SPF };

describe("claimFor", () => {
  it("publishes a record of a purpose the rules do not know beside anything but a CNAME", () => {
    const track: PlannedRecord = {
      purpose: "track_domain",
      name: "track.example.com",
      type: "TXT",
      content: quoteTxt("token"),
    };
    const other = txt("something else", { name: "track.example.com" });
    expect(claimFor(track, [other], "fail", me)).toEqual({ action: "create" });
    const cname = record({ type: "CNAME", name: "track.example.com", content: "elsewhere.example.net" });
    const refused = claimFor(track, [other, cname], "fail", me);
    expect(refused).toMatchObject({ action: "refuse" });
    expect(refused.action === "refuse" && refused.problem).toMatch(
      /the zone has a CNAME at track\.example\.com: .* so the track domain record cannot be published there/,
    );
  });

  it("creates where nothing competes: other TXT records at the apex are no SPF record", () => {
    const zone = [txt("google-site-verification=abc"), record({ type: "A", content: "192.0.2.1" })];
    expect(claimFor(spf, zone, "fail", me)).toEqual({ action: "create" });
  });

  it("takes this stack's own records as its own, another stack's as someone else's", () => {
    expect(
      claimFor(spf, [txt("v=spf1 -all", { comment: "pulumi mail/prod: email spf" })], "fail", me),
    ).toEqual({
      action: "create",
    });
    const staging = claimFor(
      spf,
      [txt("v=spf1 -all", { id: "s1", comment: "pulumi mail/staging: email spf" })],
      "fail",
      me,
    );
    expect(staging).toEqual({
      action: "refuse",
      problem: expect.stringContaining("(id s1, made by stack mail/staging)"),
    });
  });

  it("refuses by default, naming the record, its content and the choices", () => {
    const claim = claimFor(
      spf,
      [txt("v=spf1 include:_spf.google.com ~all", { id: "g1", comment: "office" })],
      "fail",
      me,
    );
    expect(claim).toEqual({
      action: "refuse",
      problem:
        'the zone already has an SPF record at example.com that this stack did not make: TXT "v=spf1 include:_spf.google.com ~all" ' +
        '(id g1, comment "office"). Choose what to do with it in `cloudflare.existingRecords.spf`: "merge" (add the ' +
        'service\'s include to it; removed again on destroy), "overwrite" (replace it; restored on destroy), "adopt" ' +
        "(only if it is identical), or remove it.",
    });
  });

  it("adopts only an identical record (TXT compared unquoted, hosts without case)", () => {
    const same = txt("v=spf1 a mx include:spf.postal.example.com ~all");
    expect(claimFor(spf, [same], "adopt", me)).toEqual({ action: "adopt", record: same });
    const differs = txt("v=spf1 -all");
    expect(claimFor(spf, [differs], "adopt", me)).toMatchObject({
      action: "refuse",
      problem: expect.stringContaining("`adopt` takes over only an identical record"),
    });
    const cname = record({ type: "CNAME", name: "psrp.example.com", content: "RP.Postal.Example.com." });
    const returnPath: PlannedRecord = {
      purpose: "return_path",
      name: "psrp.example.com",
      type: "CNAME",
      content: "rp.postal.example.com",
    };
    expect(claimFor(returnPath, [cname], "adopt", me)).toEqual({ action: "adopt", record: cname });
  });

  it("leaves the decision for later while the record's content is unknown", () => {
    const { content: _unknown, ...preview } = spf;
    expect(claimFor(preview, [txt("v=spf1 -all")], "adopt", me)).toEqual({ action: "undecided" });
    expect(claimFor(preview, [txt("v=spf1 -all")], "overwrite", me)).toMatchObject({ action: "overwrite" });
    expect(claimFor(preview, [txt("v=spf1 -all")], "fail", me)).toMatchObject({ action: "refuse" });
  });

  it("merges the service's include into the user's SPF record, adding only what it lacks", () => {
    const theirs = txt("v=spf1 include:_spf.google.com -all");
    expect(claimFor(spf, [theirs], "merge", me)).toEqual({
      action: "merge",
      record: theirs,
      content: "v=spf1 include:_spf.google.com include:spf.postal.example.com -all",
      added: ["spf.postal.example.com"],
    });
    const already = txt("v=spf1 include:spf.postal.example.com ~all");
    expect(claimFor(spf, [already], "merge", me)).toMatchObject({ action: "merge", added: [] });
  });

  it("refuses two SPF records whatever the policy, and several records where one is claimed", () => {
    const two = [txt("v=spf1 -all"), txt("v=spf1 ~all")];
    for (const policy of ["fail", "adopt", "overwrite", "merge"] as const) {
      expect(claimFor(spf, two, policy, me)).toMatchObject({
        action: "refuse",
        problem: expect.stringContaining("already has 2 SPF records at example.com"),
      });
    }
    const mine = txt("v=spf1 a mx include:spf.postal.example.com ~all", {
      comment: "pulumi mail/prod: email spf",
    });
    expect(claimFor(spf, [mine, txt("v=spf1 -all")], "merge", me)).toMatchObject({
      problem: expect.stringContaining("(this stack made one of them)"),
    });
    const dkim: PlannedRecord = {
      purpose: "dkim",
      name: "s._domainkey.example.com",
      type: "TXT",
      content: '"v=DKIM1; p=A"',
    };
    const at = { name: "s._domainkey.example.com" };
    expect(claimFor(dkim, [txt("a", at), txt("b", at)], "overwrite", me)).toMatchObject({
      problem: expect.stringContaining("2 records at s._domainkey.example.com that this stack did not make"),
    });
  });

  it("counts any record at the return-path name, and only DMARC text at _dmarc", () => {
    const returnPath: PlannedRecord = { purpose: "return_path", name: "psrp.example.com", type: "CNAME" };
    expect(
      claimFor(
        returnPath,
        [record({ type: "A", name: "psrp.example.com", content: "192.0.2.1" })],
        "fail",
        me,
      ),
    ).toMatchObject({
      action: "refuse",
    });
    const dmarc: PlannedRecord = {
      purpose: "dmarc",
      name: "_dmarc.example.com",
      type: "TXT",
      content: quoteTxt("v=DMARC1; p=none"),
    };
    expect(claimFor(dmarc, [txt("something else", { name: "_dmarc.example.com" })], "fail", me)).toEqual({
      action: "create",
    });
    expect(
      claimFor(dmarc, [txt("v=DMARC1; p=reject", { name: "_dmarc.example.com" })], "fail", me),
    ).toMatchObject({
      action: "refuse",
      problem: expect.stringContaining("a DMARC record at _dmarc.example.com"),
    });
  });

  describe("MX", () => {
    const mx: PlannedRecord = {
      purpose: "mx",
      name: "example.com",
      type: "MX",
      content: "mx1.postal.example.com",
    };
    const google = [
      record({ type: "MX", content: "aspmx.l.google.com", priority: 1, id: "g1" }),
      record({ type: "MX", content: "alt1.aspmx.l.google.com", priority: 5, id: "g2" }),
    ];

    it("refuses beside MX records this stack did not make: mail would be split", () => {
      const claim = claimFor({ ...mx, content: undefined }, google, "fail", me);
      expect(claim).toMatchObject({ action: "refuse" });
      const problem = (claim as { problem: string }).problem;
      expect(problem).toContain(
        'MX 1 "aspmx.l.google.com" (id g1, no comment); MX 5 "alt1.aspmx.l.google.com" (id g2, no comment)',
      );
      expect(problem).toContain("would split incoming mail");
      expect(problem).toContain("`mx: false`");
      expect(problem).toContain('`cloudflare.existingRecords.mx: "add"`');
    });

    it("adds beside them when asked, adopting an identical one", () => {
      expect(claimFor(mx, google, "add", me)).toEqual({ action: "add" });
      const ours = record({ type: "MX", content: "MX1.postal.example.com", priority: 10 });
      expect(claimFor(mx, [...google, ours], "add", me)).toEqual({ action: "adopt", record: ours });
      expect(claimFor({ ...mx, content: undefined }, google, "add", me)).toEqual({ action: "undecided" });
    });

    it("creates where the only MX records are this stack's", () => {
      const mine = record({
        type: "MX",
        content: "mx2.postal.example.com",
        comment: "pulumi mail/prod: email mx",
      });
      expect(claimFor(mx, [mine], "fail", me)).toEqual({ action: "create" });
    });
  });
});
