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
 * Of the records found, the domain's own are kept (`domainRecords`), so one stack's outputs serve
 * every domain it makes, a domain under another one too.
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
 * Every record in `json`, read from `source` (a file name, or `stdin`). Throws a
 * {@link RecordsError} naming `source` and what is wrong: not JSON, neither shape, or a bad record
 * (by output and index, and field). Which of them are the domain's is `domainRecords`' question,
 * asked once the service knows the domain: a file without them is no reason to hide that the
 * service has no such domain.
 */
export function readRecords(json: string, source: string): DnsRecord[] {
  const fail = (problem: string): never => {
    throw new RecordsError(`--records ${source}: ${problem}`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    return fail(`not JSON (${(error as Error).message})`);
  }
  if (Array.isArray(parsed)) return records(parsed, "", fail);
  if (typeof parsed !== "object" || parsed === null)
    return fail(`expected ${RECORDS_SHAPES}, not ${describeValue(parsed)}`);
  const arrays = Object.entries(parsed).filter(([, value]) => isRecordArray(value));
  if (arrays.length === 0) fail(`no output is an array of records; expected ${RECORDS_SHAPES}`);
  return arrays.flatMap(([output, value]) =>
    records(value as unknown[], `output ${JSON.stringify(output)} `, fail),
  );
}

/**
 * The records of `domain` among `found`, read from `source`: those at the domain or under it,
 * less those of another domain of the file under it (`mail.example.com`'s, when the domain is
 * `example.com`). Each record belongs to the closest domain it is at or under, the domains being
 * where the file has an SPF or MX record and what its DKIM keys are for
 * (`<selector>._domainkey.<domain>`): so a domain's return path (`psrp.<domain>`) and DMARC record
 * stay its own. Only these are asked about and judged: a stack's outputs may hold thousands of
 * records, and receivers' judgement is of one domain's mail. Throws a {@link RecordsError} when
 * none is the domain's.
 */
export function domainRecords(found: readonly DnsRecord[], source: string, domain: string): DnsRecord[] {
  const own = bare(domain);
  const domains = new Set([own]);
  for (const record of found) {
    const name = bare(record.name);
    if (record.purpose === "spf" || record.purpose === "mx") domains.add(name);
    else if (record.purpose === "dkim" && /^[^.]+\._domainkey\./.test(name))
      domains.add(name.slice(name.indexOf("._domainkey.") + "._domainkey.".length));
  }
  const under = found.filter((record) => atOrUnder(record.name, own));
  const kept = under.filter((record) => owner(bare(record.name), domains) === own);
  if (kept.length > 0) return kept;
  throw new RecordsError(
    `--records ${source}: none of its ${found.length} records is ` +
      (under.length === 0
        ? `at ${domain} or under it (names: ${names(found)})`
        : `${domain}'s own: those under it are other domains' (names: ${names(under)})`),
  );
}

/** The closest of `domains` that `name` is at or under: its labels dropped one by one from the left. */
function owner(name: string, domains: ReadonlySet<string>): string | undefined {
  for (let at = name; ; at = at.slice(at.indexOf(".") + 1)) {
    if (domains.has(at)) return at;
    if (!at.includes(".")) return undefined;
  }
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
  return bare(name) === bare(domain) || bare(name).endsWith(`.${bare(domain)}`);
}

/** A name as compared: lower case, no final dot. */
function bare(name: string): string {
  return name.toLowerCase().replace(/\.$/, "");
}

function names(found: readonly DnsRecord[]): string {
  const distinct = [...new Set(found.map((record) => record.name))];
  return distinct.length > 3 ? `${distinct.slice(0, 3).join(", ")}, …` : distinct.join(", ");
}
