import { claimFor } from "../../provider/dns/existing-records";
import { markedComment, MAX_COMMENT_LENGTH, recordOwner } from "../../provider/dns/ownership";
import { quoteTxt } from "../../provider/dns/txt";
import { ExistingRecordPolicies } from "../../provider/resources/publishing/existing-record-policies";

/** Adversarial review of the pure rules behind DNS ownership: marks near the 100-character cut, junk policies. */

describe("ownership marks near Cloudflare's 100 characters", () => {
  // `pulumi <project>/<stack>`: every mark length from well under the limit to well over it.
  it.each(Array.from({ length: 30 }, (_, i) => 85 + i))(
    "a stack whose mark is %i characters long knows every comment it writes",
    (markLength) => {
      const stack = "prod";
      const project = "p".repeat(markLength - "pulumi /prod".length);
      for (const description of ["", "email spf", "x".repeat(150)]) {
        const comment = markedComment(project, stack, description);
        expect(comment.length).toBeLessThanOrEqual(MAX_COMMENT_LENGTH);
        expect(recordOwner(comment, project, stack)).toEqual({ kind: "this-stack" });
      }
    },
  );

  it("two stacks of a project whose name fills the comment are not taken for each other", () => {
    // 95 characters (Pulumi allows 100): the first 99 of both marks are the same.
    const project =
      "mail-delivery-for-the-customer-facing-transactional-notifications-of-the-platform-team-eu-west1";
    expect(project).toHaveLength(95);
    const staging = markedComment(project, "staging", "email spf");
    expect(recordOwner(staging, project, "staging")).toEqual({ kind: "this-stack" });
    expect(recordOwner(staging, project, "production").kind).not.toBe("this-stack");
  });

  it("never cuts a character in two (a description with emoji)", () => {
    for (let pad = 0; pad < 4; pad++) {
      const comment = markedComment("mail", "prod", `${"x".repeat(pad)}${"📧".repeat(60)}`);
      expect(comment.length).toBeLessThanOrEqual(MAX_COMMENT_LENGTH);
      // A lone surrogate is not UTF-8: Cloudflare cannot store it as sent.
      expect(comment).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });
});

describe("cloudflare.existingRecords from a JavaScript caller", () => {
  it.each(["constructor", "toString", "hasOwnProperty", "__defineGetter__"])(
    "refuses %s, which is no record of a domain",
    (key) => {
      expect(() => ExistingRecordPolicies.from({ [key]: "adopt" } as never)).toThrow(
        `cloudflare.existingRecords.${key} is not a record of a domain`,
      );
    },
  );
});

describe("merge into a record that names the service's include where it does not authorize", () => {
  const planned = {
    purpose: "spf" as const,
    name: "example.com",
    type: "TXT",
    content: quoteTxt("v=spf1 a mx include:spf.postal.example.com ~all"),
  };
  const me = { project: "mail", stack: "prod" };
  it.each([
    "v=spf1 mx -all include:spf.postal.example.com", // appended after `all`: never evaluated
    "v=spf1 ?include:spf.postal.example.com -all", // neutral, not pass
    "v=spf1 -include:spf.postal.example.com mx ~all", // fail for the service's mail
    "v=spf1 include: spf.postal.example.com ~all", // a space after the colon: permerror for all mail
  ])("refuses %j instead of calling it merged (the service's check passes, receivers do not)", (content) => {
    const claim = claimFor(
      planned,
      [{ id: "u1", name: "example.com", type: "TXT", content: quoteTxt(content), comment: null }],
      "merge",
      me,
    );
    expect(claim).toMatchObject({
      action: "refuse",
      problem: expect.stringContaining("already names the service's include"),
    });
  });
});
