/**
 * TXT content as Cloudflare stores it: either a sequence of RFC 1035 quoted character-strings
 * (`"v=DKIM1; k=rsa; " "p=MIGf..."`) or, since the API accepts it too, a bare unquoted value.
 * Pure helpers used by the stand-in (splitting long strings) and the DNS server (turning content
 * into the character-strings it serves).
 */

/** Largest character-string a TXT RDATA can hold. */
export const MAX_CHARACTER_STRING = 255;

/** Quoted content cut into its pieces; `separators` has one more entry than `strings`. */
export interface QuotedTxt {
  /** Each string's raw text between the quotes, escapes kept as written. */
  strings: string[];
  /** Text before, between and after the strings (whitespace only). */
  separators: string[];
}

/**
 * Reads content made only of quoted strings separated by whitespace; anything else (unquoted text,
 * an unterminated quote, text between strings) gives undefined and counts as unquoted content.
 */
export function parseQuotedTxt(content: string): QuotedTxt | undefined {
  const strings: string[] = [];
  const separators: string[] = [];
  let index = 0;
  for (;;) {
    const gapStart = index;
    while (index < content.length && /\s/.test(content[index])) index++;
    separators.push(content.slice(gapStart, index));
    if (index === content.length) break;
    if (content[index] !== '"') return undefined;
    const start = ++index;
    while (index < content.length && content[index] !== '"') index += content[index] === "\\" ? 2 : 1;
    if (index >= content.length) return undefined;
    strings.push(content.slice(start, index));
    index++;
  }
  return strings.length > 0 ? { strings, separators } : undefined;
}

/**
 * The escape units of a raw quoted string (`\"`, `\\`, `\DDD`, or one character), each with the
 * bytes it stands for. Splitting between units never breaks an escape.
 */
function units(raw: string): { text: string; bytes: Buffer }[] {
  const result: { text: string; bytes: Buffer }[] = [];
  let index = 0;
  while (index < raw.length) {
    if (raw[index] === "\\") {
      const decimal = /^\d{3}/.exec(raw.slice(index + 1, index + 4));
      if (decimal) {
        result.push({ text: raw.slice(index, index + 4), bytes: Buffer.from([Number(decimal[0]) & 0xff]) });
        index += 4;
        continue;
      }
      const escaped = String.fromCodePoint(raw.codePointAt(index + 1) ?? 0x5c);
      const text = index + 1 < raw.length ? `\\${escaped}` : "\\";
      result.push({ text, bytes: Buffer.from(index + 1 < raw.length ? escaped : "\\", "utf8") });
      index += text.length;
      continue;
    }
    const char = String.fromCodePoint(raw.codePointAt(index) ?? 0);
    result.push({ text: char, bytes: Buffer.from(char, "utf8") });
    index += char.length;
  }
  return result;
}

/** The bytes a raw quoted string stands for (`\"` → `"`, `\\` → `\`, `\065` → `A`). */
export function decodeQuotedString(raw: string): Buffer {
  return Buffer.concat(units(raw).map((unit) => unit.bytes));
}

/** Cuts a raw quoted string into raw pieces of at most `max` decoded bytes each. */
export function splitQuotedString(raw: string, max = MAX_CHARACTER_STRING): string[] {
  const pieces: string[] = [];
  let current = "";
  let size = 0;
  for (const unit of units(raw)) {
    if (size + unit.bytes.length > max && current !== "") {
      pieces.push(current);
      current = "";
      size = 0;
    }
    current += unit.text;
    size += unit.bytes.length;
  }
  pieces.push(current);
  return pieces;
}

/**
 * What Cloudflare stores for TXT content it is sent: a quoted string over 255 bytes becomes
 * `"<first 255>" "<rest>"`; everything else (shorter strings, unquoted content, the whitespace
 * between strings) is kept byte for byte. Quotes are never added.
 */
export function splitLongTxtContent(content: string): string {
  const parsed = parseQuotedTxt(content);
  if (!parsed) return content;
  const tooLong = parsed.strings.some((raw) => decodeQuotedString(raw).length > MAX_CHARACTER_STRING);
  if (!tooLong) return content;
  let result = parsed.separators[0];
  parsed.strings.forEach((raw, index) => {
    result += splitQuotedString(raw)
      .map((piece) => `"${piece}"`)
      .join(" ");
    result += parsed.separators[index + 1];
  });
  return result;
}

/**
 * The character-strings a DNS server publishes for stored content: each quoted string (cut to
 * 255 bytes if still longer), or unquoted content as one value cut into 255-byte chunks.
 */
export function txtCharacterStrings(content: string): Buffer[] {
  const parsed = parseQuotedTxt(content);
  const values = parsed ? parsed.strings.map(decodeQuotedString) : [Buffer.from(content, "utf8")];
  return values.flatMap((value) => chunk(value, MAX_CHARACTER_STRING));
}

function chunk(value: Buffer, size: number): Buffer[] {
  if (value.length <= size) return [value];
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < value.length; offset += size)
    pieces.push(value.subarray(offset, offset + size));
  return pieces;
}
