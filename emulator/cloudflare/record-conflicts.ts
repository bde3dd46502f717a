import { CloudflareDnsRecord } from "../store/state";
import { cloudflareErrors } from "./errors";
import { RecordFields } from "./record-input";

const ADDRESS_OR_CNAME = new Set(["A", "AAAA", "CNAME"]);

/**
 * Refuses a record that would clash with the others at its name (the record being updated,
 * `selfId`, excluded): an identical one (81058), a CNAME next to A/AAAA/CNAME (81053), anything
 * next to a CNAME (81054). Several A/AAAA/TXT/MX records on one name are fine.
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
  if (candidate.type !== "CNAME" && atName.some((record) => record.type === "CNAME")) {
    throw cloudflareErrors.hostHasCname();
  }
}
