import fc from "fast-check";
import { quoteTxt, splitUtf8, unquoteTxt } from "../../provider/dns";

describe("TXT quoting", () => {
  it("quotes a short value as one string", () => {
    expect(quoteTxt("v=spf1 a mx include:spf.postal.example.com ~all")).toBe(
      '"v=spf1 a mx include:spf.postal.example.com ~all"',
    );
  });

  it("splits a long value into 255-byte strings separated by one space", () => {
    const value = `v=DKIM1; t=s; h=sha256; p=${"A".repeat(400)};`;
    const quoted = quoteTxt(value);
    expect(quoted).toBe(`"${value.slice(0, 255)}" "${value.slice(255)}"`);
  });

  it("escapes quotes and backslashes", () => {
    expect(quoteTxt('say "hi" \\ bye')).toBe('"say \\"hi\\" \\\\ bye"');
  });

  it("round-trips any text, and every string stays within 255 bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 1200 }), (value) => {
        const quoted = quoteTxt(value);
        const strings = quoted.match(/"(?:[^"\\]|\\.)*"/g) ?? [];
        const decoded = strings.map((s) => s.slice(1, -1).replace(/\\(.)/g, "$1"));
        return (
          unquoteTxt(quoted) === value &&
          decoded.every((s) => Buffer.byteLength(s, "utf8") <= 255) &&
          decoded.join("") === value
        );
      }),
    );
  });

  it("never cuts a multi-byte character", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 600 }),
        fc.integer({ min: 4, max: 255 }),
        (text, max) => {
          const parts = splitUtf8(text, max);
          return parts.join("") === text && parts.every((part) => Buffer.byteLength(part) <= max);
        },
      ),
    );
  });

  it("reads unquoted content as one string", () => {
    expect(unquoteTxt("v=spf1 -all")).toBe("v=spf1 -all");
  });

  it("reads content as quoted strings only when it is nothing else: quotes inside raw text stay", () => {
    expect(unquoteTxt('v=spf1 include:"x" ~all')).toBe('v=spf1 include:"x" ~all');
    expect(unquoteTxt('"v=spf1" -all')).toBe('"v=spf1" -all');
    expect(unquoteTxt('"v=spf1 -all')).toBe('"v=spf1 -all');
    expect(unquoteTxt(' "v=spf1 "\t"-all" ')).toBe("v=spf1 -all");
    expect(unquoteTxt('"a""b"')).toBe("ab");
  });

  it("gives back any text that does not start with a quote (after white space) unchanged", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (text) => {
        fc.pre(!/^\s*"/.test(text));
        return unquoteTxt(text) === text;
      }),
    );
  });
});
