/**
 * What a claimed record holds and held: the outputs the claimed record provider stores, and the
 * pure helpers that turn inputs, zone records and state into the bodies it writes.
 */
import type { ZoneRecord, ZoneRecordBody } from "../cloudflare/zone-record";
import type { ExistingRecord } from "../dns/zone-records";
import { mergeSpfIncludes, missingSpfIncludes, removeSpfIncludes, serviceSpfIncludes } from "../dns/spf";
import { isSpfRecord, lowercaseSpfVersion, sameDomain } from "../dns/spf-record";
import { quoteTxt, unquoteTxt } from "../dns/txt";
import type { ClaimedRecordInputs } from "../inputs";
import type { Created } from "./stored-provider";

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

/** What the claimed record provider stores: the checked inputs, and what it took over and how. */
export interface ClaimedRecordOutputs extends ClaimedRecordInputs {
  /** The Cloudflare record's id. */
  recordId: string;
  /** How this stack came to hold the record. */
  ownership: Ownership;
  /** Before an adoption, an overwrite or a merge. */
  original?: OriginalRecord;
  /** The includes a merge added (what destroy removes). */
  added?: string[];
  /** What the record holds, as last written or read (TXT quoted). */
  publishedContent: string;
  /** True when a refresh found the record proxied (written unproxied again by the next update). */
  publishedProxied?: boolean;
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
): Created<ClaimedRecordOutputs> {
  return { id: record.id, outs: { ...outs, recordId: record.id, publishedContent: record.content } };
}

/**
 * What the record should hold now: the inputs' content, or for a merge the record as it is with
 * the service's includes (`remerged`). A merged record that is no longer an SPF record (the user
 * made it something else) holds nothing of the stack's: what it holds is what it should.
 */
export function expectedContent(olds: ClaimedRecordOutputs, news: ClaimedRecordInputs): string {
  if (olds.ownership !== "merged") return news.content;
  if (!isSpfRecord(unquoteTxt(olds.publishedContent))) return olds.publishedContent;
  return quoteTxt(remerged(olds.publishedContent, news.content, olds.added ?? []).content);
}

/**
 * A merged SPF record (`current`, as Cloudflare holds it, an SPF record) brought in line with the
 * service's record: the includes this stack added (`added`) that the service no longer names are
 * taken out — only those: an include the user had stays — then the service's includes merged in.
 * Returns the record unquoted, and what the stack has added to it now.
 */
export function remerged(
  current: string,
  service: string,
  added: readonly string[],
): { content: string; added: string[] } {
  const includes = serviceSpfIncludes(unquoteTxt(service));
  const stale = added.filter((domain) => !includes.some((include) => sameDomain(include, domain)));
  const pruned = removeSpfIncludes(unquoteTxt(current), stale);
  const kept = added.filter((domain) => !stale.includes(domain));
  return {
    content: lowercaseSpfVersion(mergeSpfIncludes(pruned, includes)),
    added: [...new Set([...kept, ...missingSpfIncludes(pruned, includes)])],
  };
}

/** The inputs that would make the record as `outs` hold it. */
export function inputsOf(outs: ClaimedRecordOutputs): ClaimedRecordInputs {
  const {
    recordId: _id,
    ownership: _o,
    original: _original,
    added: _added,
    publishedContent: _p,
    publishedProxied: _proxied,
    ...inputs
  } = outs;
  return inputs;
}
