import type * as cloudflare from "@pulumi/cloudflare";
import { ZoneReads } from "../../provider/resources/publishing/zone-reads";

/** The zone id the paged zone answers for. */
export const PAGED_ZONE_ID = "023e105f4ecef8ad9ca31a8372d0c353";

export interface HeldRecord {
  name: string;
  type: string;
  content: string;
}

/**
 * A program run's `ZoneReads` over a zone held here, read as `getDnsRecords` reads it (100 a page
 * until an empty page or `maxItems`; `name.exact` and `name.endswith` filters), counting the
 * requests the provider would send. Each record's id is its place in `records`.
 */
export function pagedZone(records: HeldRecord[]) {
  const calls: cloudflare.GetDnsRecordsArgs[] = [];
  let requests = 0;
  const read = async (args: cloudflare.GetDnsRecordsArgs): Promise<cloudflare.GetDnsRecordsResult> => {
    calls.push(args);
    const name = args.name as { exact?: string; endswith?: string } | undefined;
    const matching = records
      .map((record, index) => ({ id: `r${index}`, ...record }))
      .filter(
        (record) =>
          (name?.exact === undefined || record.name === name.exact) &&
          (name?.endswith === undefined || record.name.endsWith(name.endswith)),
      );
    const maxItems = (args.maxItems as number) > 0 ? (args.maxItems as number) : 1000;
    const results: typeof matching = [];
    for (let page = 0; ; page++) {
      requests += 1;
      const items = matching.slice(page * 100, page * 100 + 100);
      if (items.length === 0) break;
      results.push(...items);
      if (results.length >= maxItems) break;
    }
    return {
      zoneId: PAGED_ZONE_ID,
      results: results.slice(0, maxItems),
    } as unknown as cloudflare.GetDnsRecordsResult;
  };
  return { reads: new ZoneReads(undefined, read), calls, requests: () => requests };
}
