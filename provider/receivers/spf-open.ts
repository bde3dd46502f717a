/**
 * Whether an SPF record lets any server send, as receivers evaluate it (RFC 7208 §5): `+all`
 * says so in words, and so do `ip4:`/`ip6:` networks that pass and together cover a whole address
 * family (`ip4:0.0.0.0/0`, `ip6:::/0`, `ip4:0.0.0.0/1 ip4:128.0.0.0/1`), since every client of
 * that family then matches one of them before any `all`. Pure: the terms as `readSpfTerms` reads them.
 */
import type { StrictTerm } from "../dns/spf-syntax";
import { ipv6Nibbles } from "./spf-message";

/** An address family whose every address passes. */
export interface SpfOpenFamily {
  family: "IPv4" | "IPv6";
  /** The terms that together cover it, as written. */
  terms: string[];
}

const BITS = { IPv4: 32, IPv6: 128 } as const;

/**
 * The address families every client of which passes through the record's `ip4:`/`ip6:` terms
 * (qualifier `+`, before the first `all`), with the terms that cover each: empty for a record that
 * keeps some servers out of each family.
 */
export function spfOpenFamilies(terms: readonly StrictTerm[]): SpfOpenFamily[] {
  const ranges: Record<"IPv4" | "IPv6", { start: bigint; end: bigint; text: string }[]> = {
    IPv4: [],
    IPv6: [],
  };
  for (const term of terms) {
    if (term.kind !== "mechanism") continue;
    if (term.name === "all") break; // nothing after it is evaluated
    if (term.qualifier !== "+" || (term.name !== "ip4" && term.name !== "ip6")) continue;
    const family = term.name === "ip4" ? "IPv4" : "IPv6";
    const network = term.text.slice(term.text.indexOf(":") + 1).split("/")[0];
    const start = addressValue(network, family);
    if (start === undefined) continue;
    const length = (family === "IPv4" ? term.cidr4 : term.cidr6) ?? BITS[family];
    const host = BigInt(BITS[family] - length);
    const base = (start >> host) << host;
    ranges[family].push({ start: base, end: base + (1n << host) - 1n, text: term.text });
  }
  return (["IPv4", "IPv6"] as const).flatMap((family) => {
    const sorted = [...ranges[family]].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    let covered = -1n; // the highest address covered from 0 on, without a gap
    for (const range of sorted) {
      if (range.start > covered + 1n) break;
      if (range.end > covered) covered = range.end;
    }
    return covered === (1n << BigInt(BITS[family])) - 1n
      ? [{ family, terms: sorted.map((range) => range.text) }]
      : [];
  });
}

/** An address as a number, or undefined when it does not read as one of `family`. */
function addressValue(address: string, family: "IPv4" | "IPv6"): bigint | undefined {
  if (family === "IPv4") {
    const parts = address.split(".").map(Number);
    if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part < 0 || part > 255))
      return undefined;
    return parts.reduce((value, part) => (value << 8n) + BigInt(part), 0n);
  }
  // An IPv4 tail (`::ffff:0.0.0.0`) as its two groups, then the 32 nibbles.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  const tail = dotted ? addressValue(dotted[2], "IPv4") : undefined;
  const text =
    dotted && tail !== undefined
      ? `${dotted[1]}${(tail >> 16n).toString(16)}:${(tail & 0xffffn).toString(16)}`
      : address;
  const hex = ipv6Nibbles(text).replace(/\./g, "");
  return /^[0-9a-f]{32}$/.test(hex) ? BigInt(`0x${hex}`) : undefined;
}
