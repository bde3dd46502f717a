/**
 * SPF macros (RFC 7208 §7): their syntax, and their expansion where the check knows the value.
 *
 * The check judges a record as receivers evaluate it for mail whose envelope sender is at the
 * domain the record is published at. What that fixes: `%{d}` (the current domain: the published
 * name, then each include's or redirect's target, §7.2), `%{o}` (the sender's domain, the
 * published name throughout) and `%{v}` (`in-addr` or `ip6`, fixed by the address family each
 * evaluation assumes). What it does not: `%{s}`, `%{l}` (the sender's address and local part),
 * `%{i}`, `%{p}` (the client's address and its validated name) and `%{h}` (the name the client
 * gave in HELO, which is the sending host's, not the domain's): these differ from message to
 * message, so a term that holds one is not expanded (see `expandMacros`). Such a term counts its
 * own lookup, as receivers count it, and is named in a warning rather than refused: what it leads
 * to is chosen per message (per-user policies, lists of addresses), so it cannot be known before a
 * message, and refusing would refuse every record that uses one. An `exists` on such a name is
 * the exception: for a client it does not list it finds nothing, a void lookup (spf-evaluate.ts).
 * `%{c}`, `%{r}`, `%{t}` are allowed only in explanation text (§7.2), never in a domain-spec.
 */

/** The letters a macro may use (RFC 7208 §7.2); c, r and t only in explanation text. */
const LETTERS = "slodiphcrtv";
const EXPLANATION_ONLY = "crt";

/** `%{` letter, transformers (digits, `r`), delimiters, `}`; or `%%`, `%_`, `%-` (RFC 7208 §7.1). */
const MACRO = /%(?:\{([a-z])(\d*)(r?)([.\-+,/_=]*)\}|([%_-]))/iy;

/** What a check knows of the macros' values (RFC 7208 §7.2); an absent letter is not known. */
export interface MacroValues {
  /** `%{d}`: the current domain. */
  d?: string;
  /** `%{o}`: the domain of the sender's address. */
  o?: string;
  /** `%{v}`: `in-addr` for an IPv4 client, `ip6` for an IPv6 one. */
  v?: string;
  /** `%{s}`: the sender's address, when one message is judged (`checkHost`). */
  s?: string;
  /** `%{l}`: the sender's local part. */
  l?: string;
  /** `%{i}`: the client's address (IPv6 as dot-separated nibbles, RFC 7208 §7.3). */
  i?: string;
  /** `%{h}`: the name the client gave in HELO. */
  h?: string;
  /** `%{p}`: the client's validated name; `unknown` when none is looked up (§7.3 allows it). */
  p?: string;
}

/** One piece of a macro-string: literal text, or a macro expansion. */
type Piece =
  | { literal: string }
  | { letter: string; digits: string; reverse: boolean; delimiters: string; text: string };

/**
 * Why `text` is not a macro-string (RFC 7208 §7.1: visible ASCII characters other than `%`, and
 * macros), or undefined when it is one. Letters c, r and t are refused (they belong to explanation
 * text only, §7.2), and so is a digit transformer of 0 (§7.3: it MUST be nonzero).
 */
export function macroStringProblem(text: string): string | undefined {
  const pieces = macroPieces(text);
  return typeof pieces === "string" ? pieces : undefined;
}

function macroPieces(text: string): Piece[] | string {
  const pieces: Piece[] = [];
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    if (character !== "%") {
      const code = character.charCodeAt(0);
      if (code < 0x21 || code > 0x7e)
        return `${describeCharacter(character)} is not allowed in it (RFC 7208 §7.1)`;
      const last = pieces[pieces.length - 1];
      if (last && "literal" in last) last.literal += character;
      else pieces.push({ literal: character });
      index++;
      continue;
    }
    MACRO.lastIndex = index;
    const match = MACRO.exec(text);
    if (!match) {
      const shown = text.slice(index, text.indexOf("}", index) + 1 || index + 2);
      return `"${shown}" is not a macro (RFC 7208 §7.1: %{letter…}, %%, %_ or %-; a literal % is written %%)`;
    }
    const [whole, letter, digits, reverse, delimiters, escape] = match;
    if (escape) {
      pieces.push({ literal: escape === "%" ? "%" : escape === "_" ? " " : "%20" });
    } else {
      const lower = letter.toLowerCase();
      if (!LETTERS.includes(lower))
        return `"${whole}" uses the unknown macro letter "${letter}" (RFC 7208 §7.2)`;
      if (EXPLANATION_ONLY.includes(lower))
        return `"${whole}" may appear only in explanation text, not in a domain (RFC 7208 §7.2)`;
      if (digits !== "" && Number(digits) === 0)
        return `"${whole}" keeps 0 labels: the number MUST be nonzero (RFC 7208 §7.3)`;
      pieces.push({ letter, digits, reverse: reverse !== "", delimiters, text: whole });
    }
    index += whole.length;
  }
  return pieces;
}

function describeCharacter(character: string): string {
  if (character === "\t") return "a tab";
  if (character === " ") return "a space";
  const code = character.codePointAt(0)!;
  return code < 0x20 || code === 0x7f
    ? `the control character U+${code.toString(16).toUpperCase().padStart(4, "0")}`
    : `"${character}" (not ASCII)`;
}

/**
 * A domain-spec expanded (RFC 7208 §7.3): the macros whose values are known replaced, the result
 * cut from the left to 253 characters by whole labels, and one final dot dropped. When it holds a
 * macro whose value is not known (a letter absent from `values`), `unknown` lists those macros and
 * nothing is expanded. The text must be a valid macro-string (`macroStringProblem`).
 */
export function expandMacros(text: string, values: MacroValues): { name: string } | { unknown: string[] } {
  const pieces = macroPieces(text);
  if (typeof pieces === "string") throw new Error(`expandMacros: ${pieces}`);
  const unknown = pieces.flatMap((piece) =>
    "letter" in piece && values[piece.letter.toLowerCase() as keyof MacroValues] === undefined
      ? [piece.text]
      : [],
  );
  if (unknown.length > 0) return { unknown };
  let name = pieces
    .map((piece) => ("literal" in piece ? piece.literal : expandOne(piece, values)))
    .join("")
    .replace(/\.$/, "");
  while (name.length > 253 && name.includes(".")) name = name.slice(name.indexOf(".") + 1);
  return { name };
}

/** One macro (RFC 7208 §7.3): split on its delimiters, reversed, its rightmost parts, joined by dots. */
function expandOne(piece: Extract<Piece, { letter: string }>, values: MacroValues): string {
  const value = values[piece.letter.toLowerCase() as keyof MacroValues]!;
  const delimiters = piece.delimiters || ".";
  let parts = value.split(new RegExp(`[${delimiters.replace(/[\\\]^-]/g, "\\$&")}]`));
  if (piece.reverse) parts.reverse();
  if (piece.digits !== "") parts = parts.slice(-Number(piece.digits));
  const expanded = parts.join(".");
  // An uppercase letter asks for the value URL-escaped (RFC 7208 §7.3; unreserved characters stay).
  return piece.letter === piece.letter.toUpperCase()
    ? expanded.replace(/[^A-Za-z0-9\-._~]/g, (c) => encodeURIComponent(c))
    : expanded;
}
