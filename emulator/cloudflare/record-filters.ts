import { CloudflareDnsRecord } from "../store/state";
import { cloudflareErrors } from "./errors";

/**
 * The filters of `GET /zones/{id}/dns_records`, parsed from the query and matched against stored
 * records. Pure, so the semantics can be tested without HTTP:
 * - `type` exact; `proxied` true|false;
 * - `name`, `content`, `comment` as a plain value (exact) or `.exact|.contains|.startswith|.endswith`,
 *   all case-insensitive; `comment.present` / `comment.absent` test for a comment at all;
 * - `tag` (`name:value`) likewise, plus `tag.present=name` / `tag.absent=name`, combined by
 *   `tag_match` (any|all) into one condition;
 * - `match` (all, the default, or any) combines the conditions;
 * - `search`, meant for people, whose behaviour Cloudflare leaves unspecified and applies apart
 *   from `match`: here a case-insensitive substring of the name, type, content, comment or a tag,
 *   and-ed with the rest.
 * A key may repeat; each occurrence is one condition. The values of `match`, `tag_match`,
 * `proxied`, `order` and `direction` are checked (`assertListOptions`); the parameters
 * are those of cloudflare-typescript's `RecordListParams` (`src/resources/dns/records.ts`, 7.1).
 */

type TextOperator = "exact" | "contains" | "startswith" | "endswith";
type Condition = (record: CloudflareDnsRecord) => boolean;

const TEXT_OPERATORS: readonly TextOperator[] = ["exact", "contains", "startswith", "endswith"];

export function textMatches(operator: TextOperator, actual: string, wanted: string): boolean {
  const a = actual.toLowerCase();
  const w = wanted.toLowerCase();
  switch (operator) {
    case "exact":
      return a === w;
    case "contains":
      return a.includes(w);
    case "startswith":
      return a.startsWith(w);
    case "endswith":
      return a.endsWith(w);
  }
}

/** `key` or `key.<operator>` → the text operator, or undefined when the key is something else. */
function textOperatorOf(key: string, field: string): TextOperator | undefined {
  if (key === field) return "exact";
  if (!key.startsWith(`${field}.`)) return undefined;
  const operator = key.slice(field.length + 1) as TextOperator;
  return TEXT_OPERATORS.includes(operator) ? operator : undefined;
}

function tagCondition(key: string, value: string): Condition | undefined {
  const tagName = (tag: string) => tag.split(":")[0].toLowerCase();
  if (key === "tag.present")
    return (record) => record.tags.some((tag) => tagName(tag) === value.toLowerCase());
  if (key === "tag.absent")
    return (record) => !record.tags.some((tag) => tagName(tag) === value.toLowerCase());
  const operator = textOperatorOf(key, "tag");
  if (!operator) return undefined;
  // `tag.contains=name:part` tests the value of the tags named `name`.
  const [wantedName, ...rest] = value.split(":");
  const wantedValue = rest.join(":");
  return (record) =>
    record.tags.some((tag) => {
      const [name, ...valueParts] = tag.split(":");
      return (
        name.toLowerCase() === wantedName.toLowerCase() &&
        textMatches(operator, valueParts.join(":"), wantedValue)
      );
    });
}

function fieldCondition(key: string, value: string): Condition | undefined {
  if (key === "type") return (record) => record.type === value.toUpperCase();
  if (key === "proxied") {
    if (value !== "true" && value !== "false") return undefined;
    return (record) => record.proxied === (value === "true");
  }
  if (key === "comment.present") return (record) => record.comment !== null;
  if (key === "comment.absent") return (record) => record.comment === null;

  const nameOperator = textOperatorOf(key, "name");
  // Names are stored without the trailing dot; a filter may carry one.
  if (nameOperator) return (record) => textMatches(nameOperator, record.name, value.replace(/\.$/, ""));
  const contentOperator = textOperatorOf(key, "content");
  if (contentOperator) return (record) => textMatches(contentOperator, record.content, value);
  const commentOperator = textOperatorOf(key, "comment");
  if (commentOperator)
    return (record) => record.comment !== null && textMatches(commentOperator, record.comment, value);
  return undefined;
}

/** Case-insensitive substring of any of the fields a person would search. */
export function searchMatches(record: CloudflareDnsRecord, wanted: string): boolean {
  const fields = [record.name, record.type, record.content, record.comment ?? "", ...record.tags];
  return fields.some((field) => textMatches("contains", field, wanted));
}

const LIST_OPTIONS: [key: string, allowed: readonly string[], message: string][] = [
  ["match", ["any", "all"], "Match must be one of any or all."],
  ["tag_match", ["any", "all"], "Tag match must be one of any or all."],
  [
    "order",
    ["type", "name", "content", "ttl", "proxied"],
    "Order must be one of type, name, content, ttl or proxied.",
  ],
  ["direction", ["asc", "desc"], "Direction must be one of asc or desc."],
  ["proxied", ["true", "false"], "Proxied must be true or false."],
  ["include_shadow_metadata", ["true", "false"], "include_shadow_metadata must be true or false."],
];

/**
 * Refuses a list parameter whose value Cloudflare does not take (400, 9201), instead of reading
 * it as the default. Unknown keys are let through: a client library can send only the keys
 * above, and nothing shows Cloudflare refusing others.
 */
export function assertListOptions(query: URLSearchParams): void {
  for (const [key, allowed, message] of LIST_OPTIONS) {
    for (const value of query.getAll(key)) {
      if (!allowed.includes(value)) throw cloudflareErrors.invalidListParameter(message);
    }
  }
}

/** One predicate for a whole query string; keys that are not filters (paging, sorting) are skipped. */
export function recordFilter(query: URLSearchParams): Condition {
  const conditions: Condition[] = [];
  const tagConditions: Condition[] = [];
  for (const [key, value] of query) {
    const tag = tagCondition(key, value);
    if (tag) tagConditions.push(tag);
    const field = fieldCondition(key, value);
    if (field) conditions.push(field);
  }
  if (tagConditions.length > 0) conditions.push(combine(tagConditions, query.get("tag_match")));
  const filters = combine(conditions, query.get("match"));
  const searches = query.getAll("search");
  if (searches.length === 0) return filters;
  return (record) => filters(record) && searches.every((wanted) => searchMatches(record, wanted));
}

/** All conditions, or at least one with `any`; no conditions match everything. */
function combine(conditions: Condition[], match: string | null): Condition {
  if (conditions.length === 0) return () => true;
  if (match === "any") return (record) => conditions.some((condition) => condition(record));
  return (record) => conditions.every((condition) => condition(record));
}

/** The sort key of `order` (type|name|content|ttl|proxied); undefined keeps creation order. */
export function recordOrder(
  order: string | null,
): ((record: CloudflareDnsRecord) => string | number) | undefined {
  switch (order) {
    case "type":
      return (record) => record.type;
    case "name":
      return (record) => record.name;
    case "content":
      return (record) => record.content;
    case "ttl":
      return (record) => record.ttl;
    case "proxied":
      return (record) => (record.proxied ? 1 : 0);
    default:
      return undefined;
  }
}
