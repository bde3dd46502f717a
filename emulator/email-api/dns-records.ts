import { MailDnsConfig } from "../config";
import { DomainRecord } from "../store/state";
import { dkimRecordValue } from "./dkim";

/** Where a domain's records live; the check looks exactly there. */
export interface DomainHosts {
  apex: string;
  /** `<dkimIdentifier>-<XXXXXX>._domainkey.<domain>` */
  dkim: string;
  /** `<returnPathPrefix>.<domain>` */
  returnPath: string;
}

export function domainHosts(domain: Pick<DomainRecord, "name" | "dkimIdentifierString">, dns: MailDnsConfig) {
  return {
    apex: domain.name,
    dkim: `${dns.dkimIdentifier}-${domain.dkimIdentifierString}._domainkey.${domain.name}`,
    returnPath: `${dns.returnPathPrefix}.${domain.name}`,
  } satisfies DomainHosts;
}

/** Which of a domain's checks a record serves. */
export type DnsRecordPurpose = "spf" | "dkim" | "return_path" | "mx";

/** One record the user must publish; `name` is a fully qualified name, `priority` only on MX. */
export interface DnsRecordJson {
  /** Which check it serves. */
  purpose: DnsRecordPurpose;
  /** The record type. */
  type: "TXT" | "CNAME" | "MX";
  /** The record's fully qualified name. */
  name: string;
  /** The record's content. */
  value: string;
  /** The MX priority (10). */
  priority?: number;
}

/** The records of Postal's domain setup page (`app/views/domains/setup.html.haml`), in its order. */
export function dnsRecordsFor(domain: DomainRecord, dns: MailDnsConfig): DnsRecordJson[] {
  const hosts = domainHosts(domain, dns);
  return [
    { purpose: "spf", type: "TXT", name: hosts.apex, value: `v=spf1 a mx include:${dns.spfInclude} ~all` },
    { purpose: "dkim", type: "TXT", name: hosts.dkim, value: dkimRecordValue(domain.dkimPublicKey) },
    { purpose: "return_path", type: "CNAME", name: hosts.returnPath, value: dns.returnPathDomain },
    // "Both records should be priority 10."
    ...dns.mxRecords.map((exchange): DnsRecordJson => ({
      purpose: "mx",
      type: "MX",
      name: hosts.apex,
      value: exchange,
      priority: 10,
    })),
  ];
}
