import { isIP } from "node:net";
import { domainToASCII, domainToUnicode } from "node:url";

/**
 * Name rules the service enforces (Postal's model validations, `app/models/domain.rb` and
 * `route.rb`), checked before anything is sent so a mistake fails at preview with a reason a
 * person can act on. Punycode is checked here though the service does not: a label that does not
 * decode is no name DNS can look up, so the verification could never pass.
 * Each returns the reason a name is refused, or undefined when it is fine.
 */

export function domainNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty: give the domain\'s name, e.g. "mail.example.com"';
  if (name !== name.trim()) {
    const where = /^\s/.test(name) ? "starts" : "ends";
    const what = whitespaceName(name.charAt(where === "starts" ? 0 : name.length - 1));
    return `${where} with ${what}: remove it ("${name.trim()}")`;
  }
  if (/[A-Z]/.test(name))
    return `must be lowercase (the service refuses upper case): use "${name.toLowerCase()}"`;
  if (name.endsWith(".")) return `must not end with a dot: use "${name.replace(/\.+$/, "")}"`;
  if (name.length > 253) return `is ${name.length} characters long; a DNS name has at most 253`;
  const labels = name.split(".");
  const ipAddress = 'looks like an IP address: give a domain name, e.g. "mail.example.com"';
  if (isIP(name.replace(/^\[(.*)\]$/, "$1"))) return ipAddress;
  if (labels.length < 2) return 'must have at least two labels, e.g. "mail.example.com"';
  for (const label of labels) {
    if (label.length === 0) {
      const fixed = name.replace(/^\.+/, "").replace(/\.{2,}/g, ".");
      return name.startsWith(".")
        ? `must not start with a dot: use "${fixed}"`
        : `must not have two dots in a row: use "${fixed}"`;
    }
    if (label.length > 63)
      return `has a label of ${label.length} characters ("${label.slice(0, 12)}…"); at most 63`;
    if (!/^[a-z0-9-]+$/.test(label)) return labelCharacterProblem(name, label);
    if (label.startsWith("-") || label.endsWith("-"))
      return `has a label that starts or ends with "-" ("${label}"): remove the "-"`;
    if (label.startsWith("xn--") && !isPunycode(label)) {
      return `has a label that starts with "xn--" but is not valid punycode ("${label}"): give the punycode form of the international name, e.g. "xn--bcher-kva.example" for "bücher.example"`;
    }
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1])) return ipAddress;
  return undefined;
}

/**
 * What is wrong with a label holding characters other than `a-z 0-9 -`, and the fix: a space is
 * removed or written "-"; an international name is given in punycode (its own, when IDNA can encode
 * it); other characters are removed or written "-".
 */
function labelCharacterProblem(name: string, label: string): string {
  const space = /\s/.exec(label)?.[0];
  if (space !== undefined) {
    const dashed = name.replace(/\s+/g, "-");
    return `has ${whitespaceName(space)} ("${label}"): a domain name has none: remove it, or write "-" ("${dashed}")`;
  }
  if ([...label].some((character) => character.charCodeAt(0) > 0x7f)) {
    const ascii = domainToASCII(name);
    const punycode = ascii === "" ? "its punycode form (xn--…)" : `"${ascii}"`;
    return `has characters outside ASCII ("${label}"): give the international name in punycode: ${punycode}`;
  }
  const other = /[^a-z0-9-]/.exec(label)![0];
  return `has "${other}" in "${label}": a domain name has only a-z, 0-9, "-" and dots: remove it, or write "-"`;
}

/** A whitespace character, as a message names it. */
function whitespaceName(character: string): string {
  if (character === " ") return "a space";
  if (character === "\t") return "a tab";
  if (character === "\n" || character === "\r") return "a line break";
  return `whitespace (U+${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")})`;
}

/** Route names are the local part of an address: lowercase `a-z 0-9 - .`, or `*`, or `__returnpath__`. */
export function routeNameProblem(name: string): string | undefined {
  if (name.length === 0) return "must not be empty";
  if (name === "*" || name === "__returnpath__") return undefined;
  if (name.includes("@")) return `is the local part only, without "@domain": use "${name.split("@")[0]}"`;
  if (/[A-Z]/.test(name))
    return `must be lowercase (the service refuses upper case): use "${name.toLowerCase()}"`;
  if (name.length > 255) return `is ${name.length} characters long; at most 255`;
  if (!/^[a-z0-9.-]+$/.test(name)) {
    return 'may contain only a-z, 0-9, "-" and ".", or be "*" (every address) or "__returnpath__"';
  }
  return undefined;
}

/**
 * True when an `xn--` label is what IDNA makes of some international label: Node's IDNA (UTS 46,
 * as browsers and resolvers use) decodes it, and encoding the result gives the label back. It
 * refuses labels that do not decode (`xn--zz`), that decode to plain ASCII, or to text IDNA would
 * write otherwise (upper case, unnormalized, disallowed characters).
 */
export function isPunycode(label: string): boolean {
  const decoded = domainToUnicode(label);
  return decoded !== "" && domainToASCII(decoded) === label;
}

/**
 * `emailDelivery:formerStackNames`, the names a stack had before `pulumi stack rename`: a list of
 * stack names (the name alone, as `pulumi.getStack()` gives it: letters, digits, `-`, `_`, `.`).
 */
export function formerStackNamesProblem(value: unknown): string | undefined {
  if (!Array.isArray(value))
    return `must be a list of stack names, e.g. ["staging"], not ${JSON.stringify(value)}`;
  for (const name of value) {
    if (typeof name !== "string") return `must hold stack names (strings), not ${JSON.stringify(name)}`;
    if (name.includes("/"))
      return `holds "${name}": give the stack's name alone ("${name.split("/").pop()}"), without its organization or project`;
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(name))
      return `holds "${name}", which is no stack name (letters, digits, "-", "_" and ".", at most 100)`;
  }
  return undefined;
}
