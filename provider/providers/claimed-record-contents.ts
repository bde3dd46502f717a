/**
 * What a claimed record holds and held: the outputs the claimed record provider stores, and the
 * pure helpers that turn inputs, zone records and state into the bodies it writes.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ZoneRecord, ZoneRecordBody } from "../cloudflare/zone-record";
import type { ExistingRecord } from "../dns/existing-records";
import { missingSpfIncludes, mergeSpfIncludes, serviceSpfIncludes } from "../dns/spf";
import { lowercaseSpfVersion } from "../dns/spf-record";
import { quoteTxt, unquoteTxt } from "../dns/txt";
import type { ClaimedRecordInputs } from "../inputs";

/** How this stack came to hold the record, which decides what destroy does with it. */
export type Ownership =
  /** Made by this stack: deleted. */
  | "created"
  /** An identical record the user had: left as it is. */
  | "adopted"
  /** The user's record, replaced: what it held (`original`) is put back. */
  | "overwritten"
  /** The user's SPF record with the service's include added (`added`): only that is taken out. */
  | "merged";

/**
 * What a record held before this stack took it over (as Cloudflare returned it, `tags` and
 * `settings` included: a PUT resets what it leaves out).
 */
export interface OriginalRecord extends Omit<ZoneRecord, "id" | "name" | "type"> {
  /**
   * Its type: the return path's CNAME takes over a record of any type at its name (an A record,
   * a TXT record…), and destroy puts that type back.
   */
  type?: string;
}

export interface ClaimedRecordOutputs extends ClaimedRecordInputs {
  recordId: string;
  ownership: Ownership;
  /** Before an adoption, an overwrite or a merge. */
  original?: OriginalRecord;
  /** The includes a merge added (what destroy removes). */
  added?: string[];
  /** What the record holds, as last written or read (TXT quoted). */
  publishedContent: string;
}

/** The zone's own copy of a record the claim names (the claim is made from the same list). */
export function recordIn(zone: readonly ZoneRecord[], record: ExistingRecord): ZoneRecord {
  return zone.find((candidate) => candidate.id === record.id)!;
}

/** The record as the resource publishes it: its content, TTL and marked comment, never proxied. */
export function desiredBody(inputs: ClaimedRecordInputs): ZoneRecordBody {
  return {
    name: inputs.name,
    type: inputs.type,
    content: inputs.content,
    ttl: inputs.ttl,
    proxied: false,
    ...(inputs.priority !== undefined ? { priority: inputs.priority } : {}),
    comment: inputs.comment,
  };
}

/** A record as it is, for a write that changes only its content (a merge keeps the user's TTL and comment). */
export function bodyOf(record: ZoneRecord): ZoneRecordBody {
  return { ...original(record), name: record.name, type: record.type };
}

export function original(record: ZoneRecord): OriginalRecord {
  return {
    type: record.type,
    content: record.content,
    ttl: record.ttl,
    proxied: record.proxied,
    ...(record.priority !== undefined ? { priority: record.priority } : {}),
    comment: record.comment,
    ...(record.tags ? { tags: record.tags } : {}),
    ...(record.settings ? { settings: record.settings } : {}),
  };
}

export function claimed(
  record: ZoneRecord,
  outs: Omit<ClaimedRecordOutputs, "recordId" | "publishedContent">,
): dynamic.CreateResult<ClaimedRecordOutputs> {
  return { id: record.id, outs: { ...outs, recordId: record.id, publishedContent: record.content } };
}

/** What the record should hold now: the inputs' content, or for a merge the current record with the includes. */
export function expectedContent(olds: ClaimedRecordOutputs, news: ClaimedRecordInputs): string {
  if (olds.ownership !== "merged") return news.content;
  const current = unquoteTxt(olds.publishedContent);
  return quoteTxt(
    lowercaseSpfVersion(mergeSpfIncludes(current, serviceSpfIncludes(unquoteTxt(news.content)))),
  );
}

/** The includes of the service's record that `current` lacks. */
export function addedBy(current: string, service: string): string[] {
  return missingSpfIncludes(unquoteTxt(current), serviceSpfIncludes(unquoteTxt(service)));
}

/** The inputs that would make the record as `outs` hold it. */
export function inputsOf(outs: ClaimedRecordOutputs): ClaimedRecordInputs {
  const {
    recordId: _id,
    ownership: _o,
    original: _original,
    added: _added,
    publishedContent: _p,
    ...inputs
  } = outs;
  return inputs;
}
