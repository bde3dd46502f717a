/**
 * TXT content the way DNS stores it and Cloudflare wants it: quoted character-strings of at most
 * 255 bytes each, separated by one space. Sent already split, Cloudflare stores it as is; sent as
 * one long string, Cloudflare splits it itself and every later preview shows a change
 * (terraform-provider-cloudflare#6238).
 */
export const MAX_TXT_STRING_BYTES = 255;

/** `v=DKIM1; … p=<400 chars>;` → `"<first 255 bytes>" "<rest>"`, with `"` and `\` escaped. */
export function quoteTxt(value: string): string {
  return splitUtf8(value, MAX_TXT_STRING_BYTES)
    .map((part) => `"${part.replace(/["\\]/g, "\\$&")}"`)
    .join(" ");
}

/**
 * The inverse of quoteTxt: content that is a sequence of quoted character-strings (RFC 1035 §5.1:
 * each in double quotes, `\"` and `\\` escaped, white space or nothing between them) gives their
 * text joined, as resolvers join them (RFC 7208 §3.3). Anything else is one unquoted string, kept
 * as it is: `v=spf1 include:"x" ~all` is that text, quotes and all, not `x`.
 */
export function unquoteTxt(content: string): string {
  if (!QUOTED_STRINGS.test(content)) return content;
  const strings = content.match(/"(?:[^"\\]|\\.)*"/gs)!;
  return strings.map((quoted) => quoted.slice(1, -1).replace(/\\(.)/gs, "$1")).join("");
}

/** Only quoted strings, with white space (or nothing) before, between and after them. */
const QUOTED_STRINGS = /^\s*(?:"(?:[^"\\]|\\.)*"\s*)+$/s;

/** Splits text into pieces of at most `maxBytes` UTF-8 bytes without cutting a character in two. */
export function splitUtf8(text: string, maxBytes: number): string[] {
  const parts: string[] = [];
  let current = "";
  let currentBytes = 0;
  for (const character of text) {
    const bytes = Buffer.byteLength(character, "utf8");
    if (currentBytes + bytes > maxBytes) {
      parts.push(current);
      current = "";
      currentBytes = 0;
    }
    current += character;
    currentBytes += bytes;
  }
  parts.push(current);
  return parts;
}
