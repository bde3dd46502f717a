import type { SpfResolver } from "../../provider/dns";

/** What a name holds in a `zoneResolver` table: records by type, or an error every query of it gets. */
export type ZoneEntry =
  | { txt?: readonly string[]; a?: readonly string[]; aaaa?: readonly string[]; mx?: readonly string[] }
  | Error;

const code = (message: string, errorCode: string) => Object.assign(new Error(message), { code: errorCode });

/** A DNS error as node:dns makes it (`code`: ETIMEOUT, ESERVFAIL, …). */
export const dnsError = (errorCode: string) => code(`query ${errorCode}`, errorCode);

/**
 * An `SpfResolver` over a table, answering as node:dns does: a name not in it is NXDOMAIN
 * (ENOTFOUND), a type it lacks is NODATA (ENODATA), an Error entry fails every query of the name.
 * TXT records longer than 20 characters come split in two strings, to show that they are joined
 * without spaces (RFC 7208 §3.3); MX hosts come in the order given, priorities 10, 20, …
 * `asked` lists the queries, as `TYPE name`.
 */
export function zoneResolver(zone: Record<string, ZoneEntry>): { resolver: SpfResolver; asked: string[] } {
  const asked: string[] = [];
  const lookup = (type: "txt" | "a" | "aaaa" | "mx", name: string): readonly string[] => {
    asked.push(`${type.toUpperCase()} ${name}`);
    const entry = zone[name.toLowerCase()];
    if (!entry) throw code(`query ENOTFOUND ${name}`, "ENOTFOUND");
    if (entry instanceof Error) throw entry;
    const records = entry[type];
    if (!records || records.length === 0) throw code(`query ENODATA ${name}`, "ENODATA");
    return records;
  };
  const resolver: SpfResolver = {
    txt: async (name) =>
      lookup("txt", name).map((text) => (text.length > 20 ? [text.slice(0, 20), text.slice(20)] : [text])),
    a: async (name) => [...lookup("a", name)],
    aaaa: async (name) => [...lookup("aaaa", name)],
    mx: async (name) => lookup("mx", name).map((exchange, i) => ({ exchange, priority: 10 * (i + 1) })),
  };
  return { resolver, asked };
}

/** A and AAAA records, so that `a`/`mx` lookups of a name are not void for either family. */
export const withAddresses = (
  entry: { txt?: readonly string[]; mx?: readonly string[] } = {},
): ZoneEntry => ({
  ...entry,
  a: ["192.0.2.10"],
  aaaa: ["2001:db8::10"],
});
