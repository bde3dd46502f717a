import type { DnsRecord } from "../client/types";
import { DnsQuery, nodeDnsQuery } from "../dns/dns-query";
import { judgeReceivers, ReceiversJudgement } from "../receivers/judge";
import { receiverResolver } from "../receivers/receiver-dns";
import { serviceMail } from "../receivers/service-mail";
import { bareName, DEFAULT_DNS_TIMEOUT_MS, DnsFactsOptions, findZone, zoneNameservers } from "./dns-facts";

/**
 * Receivers' judgement of a domain from the records the service asked for, through the DNS the
 * verification asks: names in the domain's zone from its authoritative nameservers (the ones
 * given, else the zone's own), every other name from the resolver (the one given, else the first
 * nameserver given, else the machine's). Undefined when the records say nothing to judge by (no
 * SPF or DKIM record among them: a standalone verification without `dnsRecords`).
 */
export function receiversJudge(
  records: readonly DnsRecord[],
  options: DnsFactsOptions = {},
): (() => Promise<ReceiversJudgement>) | undefined {
  const mail = serviceMail(records);
  if (!mail) return undefined;
  const query: DnsQuery = options.query ?? nodeDnsQuery(options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS);
  const given = options.nameservers;
  const resolver = options.resolver ?? given?.[0];
  return async () => {
    const zone = await findZone(mail.domain, (name) => query(given?.[0] ?? resolver, name, "NS"));
    const authoritative =
      given ??
      (zone ? (await zoneNameservers(zone, resolver, query, options.nameserverPort ?? 53)).servers : []).map(
        (server) => server.address,
      );
    const inZone = (name: string) =>
      zone !== undefined && (bareName(name) === zone || bareName(name).endsWith(`.${zone}`));
    const route = (name: string) => (inZone(name) && authoritative.length > 0 ? authoritative : [resolver]);
    return judgeReceivers(mail, receiverResolver(query, route));
  };
}
