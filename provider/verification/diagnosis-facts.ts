import type { DnsAnswer } from "../dns/dns-query";

/**
 * What the diagnosis of one of the service's checks is made from (the record expected, what the
 * zone and each server hold, what the service says) and what it finds: the facts `dns-facts.ts`
 * gathers, `diagnosis.ts` classifies and `diagnosis-text.ts` words.
 */

/** The record a check looks for, as the service gave it (`dnsRecords`: TXT unquoted). */
export interface ExpectedRecord {
  purpose: "spf" | "dkim" | "mx" | "return_path";
  /** Its fully qualified name. */
  name: string;
  /** `TXT`, `MX` or `CNAME`. */
  type: string;
  /** TXT text (unquoted), the MX exchange or the CNAME target. */
  value: string;
}

/** A record the zone holds (Cloudflare's answer: TXT quoted as Cloudflare stores it). */
export interface ZoneRecordFact {
  name: string;
  type: string;
  content: string;
  /** Proxied through Cloudflare: DNS answers with Cloudflare's addresses instead. @default false */
  proxied?: boolean;
}

/** What one DNS server answered; `server` names it for people (`ns1.example.net (192.0.2.1)`). */
export interface ServerAnswer {
  server: string;
  answer: DnsAnswer;
}

/** Everything known about one expected record. */
export interface DiagnosisFacts {
  expected: ExpectedRecord;
  /**
   * The zone's records at the expected name and at the name doubled (`<name>.<zone>`), when the
   * `Domain` publishes to Cloudflare; undefined when the zone is not known (the records are
   * published by hand, or the doctor has no Cloudflare token).
   */
  zone?: { name: string; records: ZoneRecordFact[] };
  /** Each of the zone's authoritative nameservers (or the one server the user named). */
  authoritative: ServerAnswer[];
  /** A recursive resolver's answer; undefined when it was not asked. */
  recursive?: ServerAnswer;
  /** Answers at the name with the zone appended twice (`mail.example.com.example.com`), if asked. */
  doubled?: ServerAnswer[];
  /**
   * Answers at a name of the zone that no one publishes (`WILDCARD_PROBE`), asked with the doubled
   * name: a wildcard record answers there too, and is then not a record at the doubled name.
   */
  wildcard?: ServerAnswer[];
  /** A CNAME the first nameserver serves at the expected name, asked when it served no record of the type. */
  cname?: { server: string; target: string };
  /** For SPF: what receivers make of the record served (`countSpfLookups`), when it was judged. */
  spf?: { total: number; limit: number; problem?: string };
  /** The service's status (`OK`, `Missing`, `Invalid`; null before its first check) and text. */
  service: { status: string | null; text: string | null };
}

/** The cases a check can be in, from the most to the least definite fix. */
export type DiagnosisCase =
  | "ok"
  | "not-published"
  | "proxied"
  | "spf-other-record"
  | "spf-too-many-lookups"
  | "other-value"
  | "wrong-name"
  | "propagating"
  | "no-answer"
  | "cname"
  | "wildcard"
  | "spf-include-spelling"
  | "service-disagrees";

/** A case with one line saying what is wrong and one saying what to do. */
export interface Diagnosis {
  case: DiagnosisCase;
  /** One line: what is wrong, with the facts that show it. */
  summary: string;
  /** What to do; empty for `ok`. */
  action: string;
}

/** Host names compared as Cloudflare and resolvers do: without letter case or a final dot. */
export function sameName(a: string, b: string): boolean {
  return a.toLowerCase().replace(/\.$/, "") === b.toLowerCase().replace(/\.$/, "");
}
