/** Cloudflare's DNS records as this package reads and writes them. */

/** A DNS record as Cloudflare returns it (the fields this package reads). */
export interface ZoneRecord {
  id: string;
  /** The FQDN, lowercase. */
  name: string;
  type: string;
  /** As stored: TXT quoted (`"v=spf1 …"`), host names lowercase. */
  content: string;
  /** TTL in seconds; 1 means automatic. */
  ttl: number;
  /** Whether Cloudflare proxies it. */
  proxied: boolean;
  /** The MX priority; MX records only. */
  priority?: number;
  /** Null when the record has none. */
  comment: string | null;
  /**
   * Its tags and settings (`flatten_cname`, `ipv4_only`…), when it has any: a PUT that leaves them
   * out resets them, so a write that keeps a user's record sends them back.
   */
  tags?: string[];
  /** Per-type settings, when it has any (see `tags`). */
  settings?: Record<string, unknown>;
}

/** What a create or a replace sends: a whole record (PUT resets what it leaves out). */
export type ZoneRecordBody = Omit<ZoneRecord, "id" | "comment"> & { comment?: string | null };

/** A record of the API's answer, with the fields this package reads. */
export function zoneRecord(value: unknown): ZoneRecord {
  const record = (value ?? {}) as Record<string, unknown>;
  if (typeof record.id !== "string" || typeof record.name !== "string" || typeof record.type !== "string") {
    throw new Error(
      `Cloudflare answered a DNS record without id, name or type: ${JSON.stringify(value)?.slice(0, 200)}`,
    );
  }
  return {
    id: record.id,
    name: record.name.toLowerCase(),
    type: record.type.toUpperCase(),
    content: typeof record.content === "string" ? record.content : "",
    ttl: typeof record.ttl === "number" ? record.ttl : 1,
    proxied: record.proxied === true,
    ...(typeof record.priority === "number" ? { priority: record.priority } : {}),
    comment: typeof record.comment === "string" && record.comment !== "" ? record.comment : null,
    ...(Array.isArray(record.tags) &&
    record.tags.length > 0 &&
    record.tags.every((tag) => typeof tag === "string")
      ? { tags: record.tags as string[] }
      : {}),
    ...(isPlainObject(record.settings) && Object.keys(record.settings).length > 0
      ? { settings: record.settings }
      : {}),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
