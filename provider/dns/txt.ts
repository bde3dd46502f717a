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

/** The inverse of quoteTxt: the character-strings of quoted content, joined (as resolvers join them). */
export function unquoteTxt(content: string): string {
  const strings = content.match(/"(?:[^"\\]|\\.)*"/g);
  if (!strings) return content; // unquoted content is one string
  return strings.map((quoted) => quoted.slice(1, -1).replace(/\\(.)/g, "$1")).join("");
}

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
