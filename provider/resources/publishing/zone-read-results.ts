/**
 * What zone reads find, as the rules read records: names compared without case or a final dot,
 * records told apart by id, the domain of the run a name falls under.
 */
import type * as cloudflare from "@pulumi/cloudflare";
import type { ExistingRecord } from "../../dns/zone-records";

export function normalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

export function uniqueById(records: readonly ExistingRecord[]): ExistingRecord[] {
  const seen = new Set<string>();
  return records.filter((record) => !seen.has(record.id) && seen.add(record.id));
}

export function named(records: readonly ExistingRecord[], name: string): ExistingRecord[] {
  return records.filter((record) => normalName(record.name) === name);
}

/** The longest of `domains` that `name` is or is under, if any. */
export function coveringDomain(domains: ReadonlySet<string>, name: string): string | undefined {
  let best: string | undefined;
  for (const domain of domains) {
    if (
      (name === domain || name.endsWith(`.${domain}`)) &&
      (best === undefined || domain.length > best.length)
    )
      best = domain;
  }
  return best;
}

/** A result of `getDnsRecords` as the rules read records. */
export function existingRecord(result: cloudflare.types.output.GetDnsRecordsResult): ExistingRecord {
  const type = result.type.toUpperCase();
  return {
    id: result.id,
    name: result.name.toLowerCase(),
    type,
    content: result.content ?? "",
    ...(type === "MX" && typeof result.priority === "number" ? { priority: result.priority } : {}),
    proxied: result.proxied === true,
    comment: result.comment || null,
  };
}
