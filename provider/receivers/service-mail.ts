/**
 * The mail the service sends for a domain, as receivers meet it, from the records the service
 * asked the domain to publish (`dnsRecords`): From at the domain, the envelope sender at the return
 * path (`psrp.<domain>`, a CNAME to the installation's return-path host), signed with the DKIM key
 * of the record at `<selector>._domainkey.<domain>` (`d=` the domain), sent from the addresses its
 * SPF include lists, by a host that greets as its mail host.
 */
import type { DnsRecord } from "../client/types";
import { CachedSpfResolver } from "../dns/spf-dns";
import { isSpfRecord } from "../dns/spf-record";
import { serviceSpfIncludes } from "../dns/spf";
import { readSpfTerms } from "../dns/spf-syntax";

export interface ServiceMail {
  /** The From domain, lowercase. */
  domain: string;
  /** The return-path record's name (`psrp.<domain>`); undefined when there is none. */
  returnPath?: string;
  /**
   * The installation's return-path host the record points at (`rp.postal.example.com`). Postal's
   * envelope sender is at the domain's return path while that points here, else at this host
   * itself (app/senders/smtp_sender.rb, `determine_mail_from_for_message`).
   */
  returnPathHost?: string;
  /** The service's SPF includes (the domain's SPF record's `include:`s). */
  spfIncludes: string[];
  /** The key record the service signs against: its name and the content it asked for. */
  dkim?: { name: string; value: string };
  /** The name the service's host gives in HELO: its first mail host. */
  helo: string;
}

const bare = (name: string) => name.toLowerCase().replace(/\.$/, "");

/** The service's mail for the domain whose records these are; undefined without an SPF or DKIM record. */
export function serviceMail(records: readonly DnsRecord[]): ServiceMail | undefined {
  const spf = records.find((record) => record.purpose === "spf");
  const dkim = records.find((record) => record.purpose === "dkim");
  const domain = spf ? bare(spf.name) : dkim ? bare(dkim.name).replace(/^.*?\._domainkey\./, "") : undefined;
  if (domain === undefined) return undefined;
  const returnPath = records.find((record) => record.purpose === "return_path");
  const mx = records.find((record) => record.purpose === "mx");
  return {
    domain,
    ...(returnPath ? { returnPath: bare(returnPath.name), returnPathHost: bare(returnPath.content) } : {}),
    spfIncludes: spf && isSpfRecord(spf.content) ? serviceSpfIncludes(spf.content) : [],
    // The service's spelling (its selectors are upper case), for people: DNS compares without case.
    ...(dkim ? { dkim: { name: dkim.name.replace(/\.$/, ""), value: dkim.content } } : {}),
    helo: mx ? bare(mx.content) : returnPath ? bare(returnPath.content) : domain,
  };
}

/** One address of each family the service sends from, or why none could be found. */
export type SendingAddresses = { ipv4?: string; ipv6?: string } | { failure: string };

/**
 * Addresses the service's includes authorize: the first network of each family their records list
 * (`ip4:`, `ip6:` that pass), else the addresses of their `a`/`mx` hosts, following nested includes
 * a few deep. Receivers judge mail from these; a DNS failure is no answer, never "no addresses".
 */
export async function sendingAddresses(
  includes: readonly string[],
  resolver: CachedSpfResolver,
): Promise<SendingAddresses> {
  const found: { ipv4?: string; ipv6?: string } = {};
  const visit = async (domain: string, depth: number): Promise<string | undefined> => {
    if (depth > 3 || (found.ipv4 && found.ipv6)) return undefined;
    const answer = await resolver.query("txt", domain);
    if ("failure" in answer) return `the TXT lookup of ${domain} failed (${answer.failure})`;
    const record = "records" in answer ? answer.records.map((s) => s.join("")).find(isSpfRecord) : undefined;
    const read = record === undefined ? undefined : readSpfTerms(record);
    if (!read || "error" in read) return undefined;
    for (const term of read.terms) {
      if (term.kind !== "mechanism" || term.qualifier !== "+") continue;
      if (term.name === "ip4" || term.name === "ip6") {
        const family = term.name === "ip4" ? "ipv4" : "ipv6";
        found[family] ??= firstAddress(term.text.slice(term.text.indexOf(":") + 1).split("/")[0], family);
      } else if (term.name === "include" && term.domainSpec && !term.domainSpec.includes("%")) {
        const failure = await visit(term.domainSpec, depth + 1);
        if (failure) return failure;
      } else if (
        (term.name === "a" || term.name === "mx") &&
        term.domainSpec &&
        !term.domainSpec.includes("%")
      ) {
        const hosts =
          term.name === "a"
            ? [term.domainSpec]
            : await resolver
                .query("mx", term.domainSpec)
                .then((mx) => ("records" in mx ? mx.records.map((r) => r.exchange) : []));
        for (const host of hosts) {
          for (const [family, type] of [
            ["ipv4", "a"],
            ["ipv6", "aaaa"],
          ] as const) {
            const addresses = await resolver.query(type, host);
            if ("records" in addresses) found[family] ??= addresses.records[0];
          }
        }
      }
    }
    return undefined;
  };
  for (const include of includes) {
    const failure = await visit(include, 0);
    if (failure) return { failure };
  }
  return found;
}

/** A host address inside a network: the network's first host (or the address itself for a /32, /128). */
function firstAddress(network: string, family: "ipv4" | "ipv6"): string {
  if (family === "ipv4") {
    const parts = network.split(".").map(Number);
    return parts[3] === 0 ? [...parts.slice(0, 3), 1].join(".") : network;
  }
  return network.endsWith("::") ? `${network}1` : network;
}
