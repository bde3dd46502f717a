import { z } from "zod";
import type { DnsRecord } from "../client";
import { describeValue } from "../inputs/check-inputs";

/**
 * The records the doctor compares DNS with (`--records FILE`). The service gives a domain's records
 * only in its create answer, so the doctor cannot ask for them: the user hands over what their
 * program exported. Pure: the caller reads the file.
 *
 * Two shapes are read, told apart by the JSON's top level:
 * - an array of records, as a Pulumi program exports a `Domain`'s `dnsRecords`;
 * - an object, as `pulumi stack output --json` prints the stack's outputs: each output whose value
 *   is a non-empty array of objects that all have a `purpose` is an array of records, and is
 *   read as one; other outputs (strings, numbers, `"[secret]"`, nested objects) are passed over.
 *
 * A record is `{ purpose, type, name, content, priority? }` (the client's `DnsRecord`); `value` may
 * stand for `content`, as the service names it in its create answer. Other properties are ignored.
 * Of the records found, those whose name is the domain or under it are kept, so one stack's outputs
 * serve every domain it makes.
 */

/** How the two shapes are named in errors and the usage text. */
export const RECORDS_SHAPES =
  "an array of records as a Domain's dnsRecords ({ purpose, type, name, content, priority? }), " +
  "or `pulumi stack output --json`";

const text = (field: string) =>
  z.string({
    error: (issue) =>
      issue.input === undefined
        ? `has no ${field}`
        : `.${field} must be text, not ${describeValue(issue.input)}`,
  });

const recordSchema = z
  .object({
    purpose: text("purpose"),
    type: text("type"),
    name: text("name"),
    content: text("content").optional(),
    value: text("value").optional(),
    priority: z
      .number({ error: (issue) => `.priority must be a number, not ${describeValue(issue.input)}` })
      .optional(),
  })
  .refine((record) => (record.content === undefined) !== (record.value === undefined), {
    error: "has no content (or value, as the service names it), or has both",
  });

/** Why the records could not be read; the command prints it and exits 2. */
export class RecordsError extends Error {}

/**
 * The domain's records in `json`, read from `source` (a file name, or `stdin`). Throws a
 * {@link RecordsError} naming `source` and what is wrong: not JSON, neither shape, a bad record
 * (by output and index, and field), or no record at the domain or under it.
 */
export function readRecords(json: string, source: string, domain: string): DnsRecord[] {
  const fail = (problem: string): never => {
    throw new RecordsError(`--records ${source}: ${problem}`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    return fail(`not JSON (${(error as Error).message})`);
  }
  let found: DnsRecord[];
  if (Array.isArray(parsed)) found = records(parsed, "", fail);
  else if (typeof parsed === "object" && parsed !== null) {
    const arrays = Object.entries(parsed).filter(([, value]) => isRecordArray(value));
    if (arrays.length === 0) fail(`no output is an array of records; expected ${RECORDS_SHAPES}`);
    found = arrays.flatMap(([output, value]) =>
      records(value as unknown[], `output ${JSON.stringify(output)} `, fail),
    );
  } else return fail(`expected ${RECORDS_SHAPES}, not ${describeValue(parsed)}`);

  const kept = found.filter((record) => atOrUnder(record.name, domain));
  if (kept.length === 0)
    fail(`none of its ${found.length} records is at ${domain} or under it (names: ${names(found)})`);
  return kept;
}

/** An output that holds records: a non-empty array of objects that all have a `purpose`. */
function isRecordArray(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((item) => typeof item === "object" && item !== null && "purpose" in item)
  );
}

function records(values: unknown[], where: string, fail: (problem: string) => never): DnsRecord[] {
  return values.map((value, index) => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return fail(`${where}[${index}] must be a record, not ${describeValue(value)}`);
    const checked = recordSchema.safeParse(value);
    if (!checked.success) {
      const message = checked.error.issues[0]?.message ?? "is not a record";
      return fail(`${where}[${index}]${message.startsWith(".") ? "" : " "}${message}`);
    }
    const { purpose, type, name, content, value: given, priority } = checked.data;
    return {
      purpose,
      type,
      name,
      content: (content ?? given) as string,
      ...(priority === undefined ? {} : { priority }),
    };
  });
}

/** Whether `name` is `domain` or a name under it (letter case and a final dot aside). */
export function atOrUnder(name: string, domain: string): boolean {
  const bare = (value: string) => value.toLowerCase().replace(/\.$/, "");
  return bare(name) === bare(domain) || bare(name).endsWith(`.${bare(domain)}`);
}

function names(found: DnsRecord[]): string {
  const distinct = [...new Set(found.map((record) => record.name))];
  return distinct.length > 3 ? `${distinct.slice(0, 3).join(", ")}, …` : distinct.join(", ");
}
