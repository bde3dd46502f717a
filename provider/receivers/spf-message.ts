/**
 * What one message fixes for SPF evaluation (RFC 7208 §7): its macros' values, and whether its
 * client's address is in a network.
 */
import { BlockList, isIPv4, isIPv6 } from "node:net";
import type { MacroValues } from "../dns/spf-macro";

/** One message's identity as `check_host()` takes it (§4.1). */
export interface SpfIdentity {
  /** The client's address (IPv4 or IPv6). */
  ip: string;
  /** The domain whose record is evaluated: the envelope sender's (MAIL FROM) domain, or HELO's. */
  domain: string;
  /** The envelope sender's address (`postmaster@<domain>` when judging HELO, §2.3). */
  sender: string;
  /** The name the client gave in HELO. */
  helo: string;
}

/** The macros' values for `domain` (`%{d}`) when `identity` is judged from a client of `family`. */
export function macroValues(domain: string, identity: SpfIdentity, family: "ipv4" | "ipv6"): MacroValues {
  const at = identity.sender.lastIndexOf("@");
  return {
    s: identity.sender,
    l: at > 0 ? identity.sender.slice(0, at) : "postmaster",
    o: at >= 0 ? identity.sender.slice(at + 1) : identity.domain,
    d: domain,
    i: family === "ipv4" ? identity.ip : ipv6Nibbles(identity.ip),
    v: family === "ipv4" ? "in-addr" : "ip6",
    h: identity.helo,
    p: "unknown",
  };
}

/** An IPv6 address as 32 dot-separated nibbles (RFC 7208 §7.3's `%{i}` for IPv6). */
export function ipv6Nibbles(ip: string): string {
  const [head, tail = ""] = ip.toLowerCase().split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = [...groups(head), ...Array<string>(ip.includes("::") ? missing : 0).fill("0"), ...groups(tail)];
  return all
    .map((group) => group.padStart(4, "0"))
    .join("")
    .split("")
    .join(".");
}

export function inNetwork(ip: string, network: string, length: number, family: "ipv4" | "ipv6"): boolean {
  if (family === "ipv4" ? !isIPv4(network) : !isIPv6(network)) return false;
  const list = new BlockList();
  list.addSubnet(network, length, family);
  return list.check(ip, family);
}
