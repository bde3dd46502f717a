import { isDmarcRecord } from "./dmarc";
import { isSpfRecord } from "./spf-record";
import { unquoteTxt } from "./txt";

/**
 * The records at a name: what a zone holds, what a domain plans to publish there, and when the
 * two compete or say the same. Pure comparisons; what to do about a competitor is
 * `existing-records.ts`.
 */

/** The purposes of the records a domain publishes, which the rules here know. */
export type RecordPurpose = "spf" | "dkim" | "return_path" | "mx" | "dmarc";

/** Every {@link RecordPurpose}. */
const RECORD_PURPOSES: readonly string[] = [
  "spf",
  "dkim",
  "return_path",
  "mx",
  "dmarc",
] satisfies RecordPurpose[];

/** Whether the rules know `purpose` (the service may add others: they compete with nothing). */
export function isRecordPurpose(purpose: string): purpose is RecordPurpose {
  return RECORD_PURPOSES.includes(purpose);
}

/** A record as the zone holds it (Cloudflare's answer). */
export interface ExistingRecord {
  id: string;
  name: string;
  type: string;
  /** As Cloudflare stores it: TXT quoted. */
  content: string;
  priority?: number;
  /**
   * Proxied through Cloudflare: DNS then answers with Cloudflare's own addresses, not its content
   * (absent: not proxied).
   */
  proxied?: boolean;
  comment: string | null;
}

/** A record to publish: its name always; its content once the service has answered. */
export interface PlannedRecord {
  /**
   * Which check it serves. A purpose the service adds that the rules do not know competes with no
   * record, but a CNAME still excludes it (`cnameAt`), as it excludes every other record.
   */
  purpose: RecordPurpose | (string & {});
  name: string;
  type: string;
  /** As Cloudflare stores it (TXT quoted); undefined while unknown (a preview of a new domain). */
  content?: string;
  /** An MX record's priority, once known. */
  priority?: number;
}

/** Whether `record` competes with `planned` for its name. */
export function competes(planned: PlannedRecord, record: ExistingRecord): boolean {
  if (!sameName(record.name, planned.name)) return false;
  const type = record.type.toUpperCase();
  switch (planned.purpose) {
    case "spf":
      return type === "TXT" && isSpfRecord(unquoteTxt(record.content));
    case "dmarc":
      return type === "TXT" && isDmarcRecord(unquoteTxt(record.content));
    case "dkim":
      return type === "TXT";
    case "mx":
      return type === "MX";
    case "return_path":
      return true; // a CNAME may share its name with no other record
    default:
      return false; // a purpose the rules do not know: only a CNAME is in its way (`cnameAt`)
  }
}

/**
 * Same type and content (TXT compared unquoted, host names without case or a final dot), the same
 * priority for MX, and not proxied: DNS answers a proxied name with Cloudflare's own addresses, so
 * a proxied record never says what its content says.
 */
export function identical(planned: PlannedRecord, record: ExistingRecord): boolean {
  if (planned.content === undefined || !sameType(planned, record) || record.proxied) return false;
  if (
    planned.type.toUpperCase() === "MX" &&
    planned.priority !== undefined &&
    record.priority !== planned.priority
  )
    return false;
  return sameContent(record.type, planned.content, record.content);
}

function sameType(planned: PlannedRecord, record: ExistingRecord): boolean {
  return planned.type.toUpperCase() === record.type.toUpperCase();
}

/** A CNAME at `planned`'s name that this stack did not make is in the way of any other type. */
export function cnameAt(planned: PlannedRecord, record: ExistingRecord): boolean {
  return record.type.toUpperCase() === "CNAME" && sameName(record.name, planned.name);
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase().replace(/\.$/, "") === b.toLowerCase().replace(/\.$/, "");
}

/**
 * Whether two contents of a record of `type` say the same: TXT compared unquoted (its strings
 * joined, as resolvers join them), host names without case or a final dot.
 */
export function sameContent(type: string, a: string, b: string): boolean {
  if (type.toUpperCase() === "TXT") return unquoteTxt(a) === unquoteTxt(b);
  const host = (value: string) => value.toLowerCase().replace(/\.$/, "");
  return host(a) === host(b);
}
