import { isIPv4, isIPv6 } from "node:net";
import { CloudflareDnsRecord } from "../store/state";
import { cloudflareErrors } from "./errors";
import { isValidHostname, recordFqdn } from "./names";
import { splitLongTxtContent } from "./txt-content";

/**
 * From a request body to the fields a record is stored with: type-check the JSON, apply PUT
 * (full replacement) or PATCH (merge) semantics, then validate and normalise as Cloudflare does.
 * Pure: the handlers add ids, timestamps and conflict checks.
 */

export const SUPPORTED_TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "NS"] as const;
const PROXIABLE_TYPES = new Set(["A", "AAAA", "CNAME"]);

/** What a record is made of, as validated and normalised. */
export interface RecordFields {
  name: string;
  type: string;
  content: string;
  ttl: number;
  proxied: boolean;
  priority: number | null;
  comment: string | null;
  tags: string[];
  settings: Record<string, unknown>;
}

/** The fields before validation: `undefined` where a required field is missing. */
type Draft = { [K in keyof RecordFields]: RecordFields[K] | undefined };

/** The fields a body sent: absent keys are undefined, JSON `null` stays null (= unset). */
type RecordBody = { [K in keyof RecordFields]?: RecordFields[K] | null };

const DEFAULTS = { ttl: 1, proxied: false, priority: null, comment: null, tags: [], settings: {} } as const;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const FIELD_CHECKS: { [K in keyof RecordFields]: (value: unknown) => boolean } = {
  name: (value) => typeof value === "string",
  type: (value) => typeof value === "string",
  content: (value) => typeof value === "string",
  ttl: (value) => typeof value === "number",
  proxied: (value) => typeof value === "boolean",
  priority: (value) => typeof value === "number",
  comment: (value) => typeof value === "string",
  tags: (value) => Array.isArray(value) && value.every((tag) => typeof tag === "string"),
  settings: isPlainObject,
};

/**
 * Type-checks a parsed body. Unknown keys (`data`, `private_routing`, `zone_id`, ...) are ignored;
 * a known key of the wrong JSON type is a 400 (9207).
 */
export function readRecordBody(json: unknown): RecordBody {
  if (!isPlainObject(json)) throw cloudflareErrors.invalidBody();
  const body: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(FIELD_CHECKS)) {
    if (!(key in json)) continue;
    const value = json[key];
    if (value !== null && !check(value)) throw cloudflareErrors.invalidBody();
    body[key] = value;
  }
  return body as RecordBody;
}

/** POST and PUT: the body is the whole record; what it leaves out or nulls takes the default. */
export function draftFromBody(body: RecordBody): Draft {
  return {
    name: body.name ?? undefined,
    type: body.type ?? undefined,
    content: body.content ?? undefined,
    ttl: body.ttl ?? DEFAULTS.ttl,
    proxied: body.proxied ?? DEFAULTS.proxied,
    priority: body.priority ?? DEFAULTS.priority,
    comment: body.comment ?? DEFAULTS.comment,
    tags: body.tags ?? [...DEFAULTS.tags],
    settings: body.settings ?? { ...DEFAULTS.settings },
  };
}

/** PATCH: the body's keys replace the stored ones; a JSON null unsets (back to the default). */
export function draftFromPatch(existing: CloudflareDnsRecord, body: RecordBody): Draft {
  const full = draftFromBody(body);
  const pick = <K extends keyof RecordFields>(key: K): Draft[K] => (key in body ? full[key] : existing[key]);
  return {
    name: pick("name"),
    type: pick("type"),
    content: pick("content"),
    ttl: pick("ttl"),
    proxied: pick("proxied"),
    priority: pick("priority"),
    comment: pick("comment"),
    tags: pick("tags"),
    settings: pick("settings"),
  };
}

/**
 * Validates a draft for `zoneName` and normalises it the way Cloudflare stores records: FQDN
 * lowercase names, lowercase CNAME/MX/NS targets, compressed IPv6, long TXT strings split
 * (when `splitLongTxt`), priority only on MX, an empty comment as none.
 */
export function validateRecord(
  draft: Draft,
  zoneName: string,
  options: { splitLongTxt: boolean },
): RecordFields {
  const type = draft.type?.toUpperCase();
  if (!type || !(SUPPORTED_TYPES as readonly string[]).includes(type)) throw cloudflareErrors.invalidType();

  const name = draft.name === undefined ? undefined : recordFqdn(draft.name, zoneName);
  if (name === undefined) throw cloudflareErrors.invalidName();

  if (draft.content === undefined || draft.content.trim() === "") throw cloudflareErrors.contentRequired();
  const content = normaliseContent(type, draft.content, options);

  const ttl = draft.ttl ?? DEFAULTS.ttl;
  if (!Number.isInteger(ttl) || (ttl !== 1 && (ttl < 60 || ttl > 86400))) throw cloudflareErrors.invalidTtl();

  let priority: number | null = null;
  if (type === "MX") {
    if (draft.priority === undefined || draft.priority === null) throw cloudflareErrors.priorityRequired();
    if (!Number.isInteger(draft.priority) || draft.priority < 0 || draft.priority > 65535) {
      throw cloudflareErrors.invalidPriority();
    }
    priority = draft.priority;
  }

  const proxied = draft.proxied ?? DEFAULTS.proxied;
  if (proxied && !PROXIABLE_TYPES.has(type)) throw cloudflareErrors.notProxiable();

  const comment = draft.comment ? draft.comment : null;
  if (comment !== null) assertValidComment(comment);
  const tags = draft.tags ?? [];
  assertValidTags(tags);

  return {
    name,
    type,
    content,
    // A proxied record's TTL is Cloudflare's ("Auto"): stored and answered as 1 whatever was sent
    // (cloudflare-docs `dns/manage-dns-records/reference/ttl.mdx`: "all proxied records have a TTL
    // of Auto"; the Cloudflare provider refuses to send another, "Cloudflare will control the TTL").
    ttl: proxied ? 1 : ttl,
    proxied,
    priority,
    comment,
    tags,
    settings: knownSettings(type, draft.settings ?? {}),
  };
}

/** The free plan's limit, which the stand-in's zones (plan "Free Website") are on. */
export const MAX_COMMENT_LENGTH = 100;

/**
 * A comment as cloudflare-docs `dns/manage-dns-records/reference/record-attributes.mdx` allows it:
 * any characters but newline and carriage return; at most 100 characters on the free plan
 * (`src/content/plans/index.json`, `dns.record_comments.character_limit`; 500 on paid plans),
 * counted as Unicode characters.
 */
export function assertValidComment(comment: string): void {
  if (/[\r\n]/.test(comment)) throw cloudflareErrors.commentLineBreak();
  if ([...comment].length > MAX_COMMENT_LENGTH) throw cloudflareErrors.commentTooLong();
}

/**
 * Tags as the same page allows them: `name:value`, the name of letters, digits, `-` and `_`, the
 * value under the comment's rules; with the paid plans' limits (`dns.record_tags`: names of at
 * most 32 characters, values of at most 100, 20 tags a record). Free-plan zones cannot have tags
 * at all; the stand-in accepts them so that a test can hold what a paid zone holds
 * (docs/emulator.md).
 */
export function assertValidTags(tags: string[]): void {
  if (tags.length > 20) throw cloudflareErrors.invalidTag("a record has at most 20 tags.");
  for (const tag of tags) {
    const colon = tag.indexOf(":");
    if (colon < 0) throw cloudflareErrors.invalidTag(`${JSON.stringify(tag)} is not of the form name:value.`);
    const name = tag.slice(0, colon);
    const value = tag.slice(colon + 1);
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(name)) {
      throw cloudflareErrors.invalidTag(
        `${JSON.stringify(name)}: a tag name is 1 to 32 letters, digits, "-" or "_".`,
      );
    }
    if (/[\r\n]/.test(value) || [...value].length > 100) {
      throw cloudflareErrors.invalidTag(
        `the value of ${JSON.stringify(name)} has a line break or more than 100 characters.`,
      );
    }
  }
}

/**
 * The settings a record of `type` has (cloudflare-typescript 7.1 `src/resources/dns/records.ts`:
 * every type's `Settings` has `ipv4_only` and `ipv6_only`, a CNAME's also `flatten_cname`), each
 * a boolean (another JSON type is 9207). Other keys are dropped: no source shows Cloudflare
 * refusing them, and none shows it keeping them.
 */
export function knownSettings(type: string, settings: Record<string, unknown>): Record<string, boolean> {
  const known = type === "CNAME" ? ["flatten_cname", "ipv4_only", "ipv6_only"] : ["ipv4_only", "ipv6_only"];
  const kept: Record<string, boolean> = {};
  for (const key of known) {
    const value = settings[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== "boolean") throw cloudflareErrors.invalidBody();
    kept[key] = value;
  }
  return kept;
}

export function isProxiable(type: string): boolean {
  return PROXIABLE_TYPES.has(type);
}

function normaliseContent(type: string, content: string, options: { splitLongTxt: boolean }): string {
  switch (type) {
    case "A":
      // net.isIPv4 takes dotted-decimal only, so alternative notations are refused as Cloudflare does.
      if (!isIPv4(content)) throw cloudflareErrors.invalidIpv4();
      return content;
    case "AAAA":
      if (!isIPv6(content)) throw cloudflareErrors.invalidIpv6();
      return compressIpv6(content);
    case "CNAME":
    case "MX":
    case "NS":
      if (!isValidHostname(content)) throw cloudflareErrors.invalidHostname(type);
      return content.toLowerCase();
    case "TXT":
      return options.splitLongTxt ? splitLongTxtContent(content) : content;
    default:
      return content;
  }
}

/** RFC 5952 text form (`2001:db8::1`); the WHATWG URL parser serialises IPv6 hosts that way. */
export function compressIpv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}
