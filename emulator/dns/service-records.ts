import { findZone, ZoneData } from "./lookup";
import type { CloudflareDnsRecord } from "../store/state";

/**
 * The records the email service's installation publishes in its own DNS, which a user's zone
 * never holds: its SPF record at `dns.spf_include` (what the include the service asks domains to
 * publish leads to). Receivers follow that include when they evaluate a merged SPF record, so the
 * DNS server answers it too, with the service's sending networks (documentation ranges here),
 * wherever it falls in one of the stand-in's zones and no record of that zone is at its name. It
 * is never in the Cloudflare stand-in's records: a zone read does not see it.
 */
export const SERVICE_SPF = "v=spf1 ip4:192.0.2.0/24 ip6:2001:db8::/32 ~all";

export function withServiceRecords(data: ZoneData, spfInclude: string): ZoneData {
  const name = spfInclude.toLowerCase().replace(/\.$/, "");
  const zone = findZone(data.zones, name);
  if (!zone || data.records.some((record) => record.zoneId === zone.id && record.name === name)) return data;
  const record: CloudflareDnsRecord = {
    id: "service-spf",
    zoneId: zone.id,
    name,
    type: "TXT",
    content: `"${SERVICE_SPF}"`,
    ttl: 300,
    proxied: false,
    priority: null,
    comment: null,
    tags: [],
    settings: {},
    createdOn: zone.createdOn,
    modifiedOn: zone.createdOn,
    commentModifiedOn: null,
    tagsModifiedOn: null,
  };
  return { ...data, records: [...data.records, record] };
}
