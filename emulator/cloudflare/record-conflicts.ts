import { CloudflareDnsRecord } from "../store/state";
import { cloudflareErrors } from "./errors";
import { RecordFields } from "./record-input";

const ADDRESS_OR_CNAME = new Set(["A", "AAAA", "CNAME"]);

/**
 * Refuses a record that would clash with the others at its name (the record being updated,
 * `selfId`, excluded), as Cloudflare's rules read, whichever record came first:
 * - an identical record (same type and content): 81058;
 * - a CNAME where an A, AAAA or CNAME is: 81053;
 * - an A or AAAA where a CNAME is: 81054.
 *
 * Nothing else conflicts: Cloudflare keeps a TXT, MX or NS beside a CNAME, and a CNAME beside
 * them, in either order. Its API reference says only "A/AAAA records cannot exist on the same
 * name as CNAME records" (cloudflare-typescript `src/resources/dns/records.ts`, `create`), its
 * troubleshooting page "Records with the same name" lists exactly these two causes, and users
 * report a TXT accepted beside a CNAME at `_dmarc` and at a DKIM name (cloudflare-docs issue
 * #30376, closed as not a docs problem). So a zone can hold a CNAME with other records beside it
 * (the package's own rules refuse to publish there: `provider/dns/existing-records.ts`).
 */
export function assertNoConflict(
  others: CloudflareDnsRecord[],
  zoneId: string,
  candidate: RecordFields,
  selfId?: string,
): void {
  const atName = others.filter(
    (record) => record.zoneId === zoneId && record.name === candidate.name && record.id !== selfId,
  );
  if (atName.some((record) => record.type === candidate.type && record.content === candidate.content)) {
    throw cloudflareErrors.identicalRecord();
  }
  if (candidate.type === "CNAME" && atName.some((record) => ADDRESS_OR_CNAME.has(record.type))) {
    throw cloudflareErrors.hostHasAddressOrCname();
  }
  if (
    (candidate.type === "A" || candidate.type === "AAAA") &&
    atName.some((record) => record.type === "CNAME")
  ) {
    throw cloudflareErrors.hostHasCname();
  }
}
