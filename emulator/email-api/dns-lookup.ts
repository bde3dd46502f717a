import { promises as dns } from "node:dns";
import { ResolverAddress } from "../config";
import { DnsAnswers } from "./dns-check";
import { DomainHosts } from "./dns-records";

/**
 * Asks the emulator's authoritative DNS server (never the system resolver) what a domain
 * publishes. Postal's resolver treats NXDOMAIN, no data and timeouts alike: no records. The
 * timeouts are short so a check against a dead server still answers within a few seconds.
 */
export async function lookupDomainAnswers(address: ResolverAddress, hosts: DomainHosts): Promise<DnsAnswers> {
  const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers([address]);
  const [apexTxt, dkimTxt, mxExchanges, returnPathCnames] = await Promise.all([
    // node:dns gives each byte as a character (latin1): read back as the UTF-8 text served, as Postal's resolver reads it.
    orNone(async () => (await resolver.resolveTxt(hosts.apex)).map((chunks) => utf8(chunks))),
    orNone(async () => (await resolver.resolveTxt(hosts.dkim)).map((chunks) => utf8(chunks))),
    orNone(async () => (await resolver.resolveMx(hosts.apex)).map((mx) => mx.exchange)),
    orNone(() => resolver.resolveCname(hosts.returnPath)),
  ]);
  return { apexTxt, dkimTxt, mxExchanges, returnPathCnames };
}

/** ENOTFOUND, ENODATA, ECONNREFUSED, ETIMEOUT, EBADNAME (a huge name)…: all mean "no records". */
async function orNone(lookup: () => Promise<string[]>): Promise<string[]> {
  try {
    return await lookup();
  } catch {
    return [];
  }
}

/** TXT strings as node:dns gives them (a character a byte), joined and read as UTF-8. */
function utf8(chunks: readonly string[]): string {
  return Buffer.from(chunks.join(""), "latin1").toString("utf8");
}
