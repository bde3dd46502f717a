import fc from "fast-check";
import { markedComment, MAX_COMMENT_LENGTH, recordOwner } from "../../provider/dns/ownership";

describe("ownership marks", () => {
  it("puts the mark first, then the description, within Cloudflare's 100 characters", () => {
    expect(markedComment("mail", "prod", "email spf")).toBe("pulumi mail/prod: email spf");
    expect(markedComment("mail", "prod", "")).toBe("pulumi mail/prod");
    const long = markedComment("mail", "prod", "x".repeat(200));
    expect(long).toHaveLength(MAX_COMMENT_LENGTH);
    expect(long.startsWith("pulumi mail/prod: xxx")).toBe(true);
    expect(long.endsWith("…")).toBe(true);
  });

  it("tells this stack, another stack and an unmarked record apart", () => {
    expect(recordOwner("pulumi mail/prod: email spf", "mail", "prod")).toEqual({ kind: "this-stack" });
    expect(recordOwner("pulumi mail/prod", "mail", "prod")).toEqual({ kind: "this-stack" });
    expect(recordOwner("pulumi mail/staging: email spf", "mail", "prod")).toEqual({
      kind: "other-stack",
      stack: "mail/staging",
    });
    expect(recordOwner("pulumi mail/production: email spf", "mail", "prod")).toEqual({
      kind: "other-stack",
      stack: "mail/production",
    });
    for (const comment of [
      null,
      undefined,
      "",
      "office mail",
      "managed by pulumi mail/prod",
      "pulumi mail",
    ]) {
      expect(recordOwner(comment, "mail", "prod")).toEqual({ kind: "unmarked" });
    }
  });

  it("recognises every comment it writes as this stack's, and as no other stack's", () => {
    // Project and stack names up to 40 characters: the mark always fits whole.
    const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/);
    fc.assert(
      fc.property(name, name, fc.string({ maxLength: 150 }), name, (project, stack, description, other) => {
        const comment = markedComment(project, stack, description);
        expect(comment.length).toBeLessThanOrEqual(MAX_COMMENT_LENGTH);
        expect(recordOwner(comment, project, stack)).toEqual({ kind: "this-stack" });
        if (other !== stack) expect(recordOwner(comment, project, other).kind).not.toBe("this-stack");
      }),
    );
  });

  it("shortens names over 40 characters with a hash, so the mark always fits and long names still differ", () => {
    const project = "p".repeat(60);
    const comment = markedComment(project, "s".repeat(60), "email spf");
    expect(comment).toMatch(/^pulumi p{31}~[0-9a-f]{8}\/s{31}~[0-9a-f]{8}: email spf$/);
    expect(recordOwner(comment, project, "s".repeat(60))).toEqual({ kind: "this-stack" });
    expect(recordOwner(comment, project, `${"s".repeat(59)}t`).kind).toBe("other-stack");
  });
});
