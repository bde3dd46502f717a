import type { DomainCheck } from "../client";
import type { DnsAnswer } from "../dns/dns-query";
import type { CheckName } from "../inputs";

/**
 * What the diagnosis of one of the service's checks is made from (the record expected, what the
 * zone and each server hold, what the service says) and what it finds: the facts `dns-facts.ts`
 * gathers, `diagnosis.ts` classifies and `report-text.ts` words; and the seam between a wait (or
 * the doctor) and the diagnosis, what a `Diagnoser` takes and returns (`checkDiagnoser` makes one
 * over DNS).
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

/** A failing check's facts and case. */
export interface CheckDiagnosis {
  facts: DiagnosisFacts;
  diagnosis: Diagnosis;
}

/** The diagnoses of the failing checks that have an expected record. */
export type CheckDiagnoses = Partial<Record<CheckName, CheckDiagnosis>>;

/** What one call of a `Diagnoser` may reuse or add. */
export interface DiagnoseOptions {
  /**
   * Facts already gathered this poll: their DNS answers are reused (no query is sent again), only
   * the service's status is taken anew. The wait passes them for the failure's final diagnosis.
   * @default none: DNS is asked
   */
  known?: CheckDiagnoses;
  /**
   * Ask for the zone's records too (Cloudflare API requests, which are rate-limited account-wide):
   * the wait asks once, for the failure's final diagnosis, never per poll. @default false
   */
  zone?: boolean;
  /**
   * How long the whole gather (every query of every check) may take; past it the call rejects,
   * which a DNS-first wait counts as "DNS cannot tell". @default no bound beyond each query's
   */
  timeoutMs?: number;
  /**
   * Ask the authoritative nameservers only (a DNS-first poll: what decides whether to ask the
   * service), leaving the resolver, the doubled name and SPF's lookups to the failure's diagnosis.
   * @default false
   */
  brief?: boolean;
}

/** Diagnoses the failing checks (`checkDiagnoser`: over DNS); `result` undefined: not checked yet. */
export type Diagnoser = (
  result: DomainCheck | undefined,
  failing: readonly CheckName[],
  options?: DiagnoseOptions,
) => Promise<CheckDiagnoses>;
