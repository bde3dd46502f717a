import { missingSpfIncludes, serviceSpfIncludes } from "../dns/spf";
import { isSpfRecord } from "../dns/spf-record";
import { unquoteTxt } from "../dns/txt";
import { sameContent } from "../dns/zone-records";

/**
 * Why one of the service's checks fails, from facts alone: the record the service expects, what
 * the zone holds, what each authoritative nameserver and a recursive resolver answer, and what
 * the service says. Pure, so the verification's failure, the doctor command and a DNS-first wait
 * all classify alike; gathering the facts is `dns-facts.ts`, wording them `diagnosis-text.ts`.
 *
 * Comparisons follow `dns/zone-records.ts`: TXT unquoted (strings joined, as resolvers join
 * them), host names without letter case or a final dot.
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

/**
 * One server's answer for the expected name and type: the values (TXT joined, MX exchanges, CNAME
 * targets), or NXDOMAIN, or an error (a timeout, SERVFAIL, REFUSED). `values: []` is NOERROR with
 * no data.
 */
export type DnsAnswer = { values: string[] } | { nxdomain: true } | { error: string };

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

/**
 * Whether a served value is the expected record. For SPF, a record that already includes every
 * `include:` of the service's counts too: the `Domain` merges the service's include into a record
 * the zone already has instead of publishing a second one (`dns/spf.ts`).
 */
export function servesExpected(expected: ExpectedRecord, value: string): boolean {
  const text = expected.type.toUpperCase() === "TXT" ? unquoteTxt(value) : value;
  if (sameContent(expected.type, expected.value, text)) return true;
  // Postal compares a DKIM record trimmed and with its final ";" added if absent.
  if (expected.purpose === "dkim") return dkimForm(text) === dkimForm(expected.value);
  if (expected.purpose !== "spf" || !isSpfRecord(text)) return false;
  try {
    const includes = serviceSpfIncludes(expected.value);
    return includes.length > 0 && missingSpfIncludes(text, includes).length === 0;
  } catch {
    return false; // a record that does not parse is not ours
  }
}

function dkimForm(value: string): string {
  const trimmed = value.trim();
  return trimmed.endsWith(";") ? trimmed : `${trimmed};`;
}

/**
 * Whether one server's answer is what the check wants: the expected value among its values, and
 * for DKIM the only value (Postal's check refuses more than one record at the name, first).
 */
export function answerServes(expected: ExpectedRecord, answer: DnsAnswer): boolean {
  const values = valuesOf(answer);
  if (expected.purpose === "dkim" && values.length > 1) return false;
  return values.some((value) => servesExpected(expected, value));
}

/** The values of an answer (none for NXDOMAIN or an error). */
function valuesOf(answer: DnsAnswer): string[] {
  return "values" in answer ? answer.values : [];
}

/** Classifies one check: see `DiagnosisCase`. */
export function diagnose(facts: DiagnosisFacts): Diagnosis {
  const { expected, zone, authoritative, service } = facts;
  const where = `${expected.type.toUpperCase()} ${bare(expected.name)}`;
  const zoneHere = (zone?.records ?? []).filter((record) => sameName(record.name, expected.name));
  const ofType = zoneHere.filter((record) => record.type.toUpperCase() === expected.type.toUpperCase());
  // Only a proxied record that DNS would answer for this type hides it: a proxied website (A at
  // the apex) does not hide the apex's TXT or MX records, which cannot be proxied.
  const proxied = zoneHere.find(
    (r) => r.proxied && [expected.type.toUpperCase(), "CNAME"].includes(r.type.toUpperCase()),
  );
  const servers = authoritative.length > 0 ? authoritative : facts.recursive ? [facts.recursive] : [];
  const answered = servers.filter((server) => !("error" in server.answer));
  const serving = answered.filter((server) => answerServes(expected, server.answer));
  const spfRecords = (server: ServerAnswer) =>
    valuesOf(server.answer).filter((v) => isSpfRecord(unquoteTxt(v)));

  if (proxied)
    return {
      case: "proxied",
      summary: `${where} is proxied through Cloudflare, so DNS answers with Cloudflare's addresses, not its content`,
      action: `Turn the proxy off for ${bare(expected.name)} (DNS only, grey cloud).`,
    };

  if (expected.purpose === "spf") {
    const twice = servers.find((server) => spfRecords(server).length > 1);
    if (twice)
      return {
        case: "spf-other-record",
        summary: `${bare(expected.name)} has ${spfRecords(twice).length} SPF records (${twice.server}); receivers then return permerror (RFC 7208 §4.5)`,
        action:
          "Keep one SPF record at the name: merge the service's include into the other one and delete the rest.",
      };
    if (serving.length > 0 && facts.spf?.problem)
      return {
        case: "spf-too-many-lookups",
        // Over 10 lookups, or another of RFC 7208's lookup limits (more than 2 void lookups).
        summary:
          facts.spf.total > facts.spf.limit
            ? `the SPF record needs ${facts.spf.total} DNS lookups, over the limit of ${facts.spf.limit}`
            : `receivers return permerror for the SPF record served (it needs ${facts.spf.total} DNS lookups)`,
        action: facts.spf.problem,
      };
  }

  if (servers.length > 0 && serving.length === servers.length) {
    const recursive = facts.recursive;
    if (
      authoritative.length > 0 &&
      recursive &&
      !("error" in recursive.answer) &&
      !answerServes(expected, recursive.answer)
    )
      return {
        case: "propagating",
        summary: `all ${servers.length} nameservers serve ${where}, but the resolver (${recursive.server}) still answers ${describe(recursive.answer)} from its cache`,
        action: "Wait for the old answer's TTL to run out; the next check sees the record.",
      };
    // Null: not asked yet (a DNS-first wait asks once DNS shows the records), so nothing disagrees.
    if (service.status === "OK" || service.status === null) {
      const note = service.status === null ? "; the service has not checked it yet" : "";
      return { case: "ok", summary: `${where} is served as expected${note}`, action: "" };
    }
    return {
      case: "service-disagrees",
      summary: `DNS serves ${where} as expected (${servers.length} of ${servers.length} servers), but the service says ${service.status}`,
      action:
        "Run the check again later: the service may ask another resolver (its own cache, a split-horizon view). " +
        "If it persists, compare the service's text with the value above.",
    };
  }

  if (serving.length > 0)
    return {
      case: "propagating",
      summary: `${serving.length} of ${servers.length} nameservers serve ${where}; the others do not yet`,
      action: "Wait: the zone reaches every nameserver within minutes. Nothing to change.",
    };

  const twice = expected.purpose === "dkim" && answered.find((a) => valuesOf(a.answer).length > 1);
  if (twice)
    return {
      case: "other-value",
      summary: `${where} has ${valuesOf(twice.answer).length} TXT records (${twice.server}); the service accepts exactly one`,
      action: "Delete every record at the name but the expected one (an old key left beside the new?).",
    };
  // For SPF, only other SPF records: an apex holds site-verification TXT records too.
  const rival = (value: string) => expected.purpose !== "spf" || isSpfRecord(unquoteTxt(value));
  const otherInZone = ofType.find((r) => !servesExpected(expected, r.content) && rival(r.content));
  const otherInDns = answered.find((server) => valuesOf(server.answer).some(rival));
  if (ofType.some((record) => servesExpected(expected, record.content)) && servers.length > 0)
    return answered.length === 0
      ? noAnswer(where, servers)
      : {
          case: "propagating",
          summary: `the zone holds ${where}, but 0 of ${servers.length} nameservers serve it yet`,
          action: "Wait: the zone reaches every nameserver within minutes. Nothing to change.",
        };
  if (otherInZone || otherInDns) {
    const shown = otherInZone ? "in the zone" : `at ${otherInDns!.server}`;
    const what =
      expected.purpose === "dkim"
        ? "another DKIM key (an old one?)"
        : expected.type.toUpperCase() === "CNAME"
          ? "another CNAME target"
          : expected.purpose === "spf"
            ? "another SPF record, without the service's include"
            : "another value";
    return {
      case: "other-value",
      summary: `${where} exists ${shown}, with ${what}`,
      action:
        expected.purpose === "spf"
          ? "Add the service's include to that record (one SPF record per name)."
          : "Replace its content with the expected value.",
    };
  }

  const doubledName = zone ? `${bare(expected.name)}.${bare(zone.name)}` : undefined;
  // The expected value there (a wildcard's answer is not it), or a record of that very name.
  const doubledInZone =
    doubledName && (zone?.records ?? []).some((record) => sameName(record.name, doubledName));
  const doubledInDns = (facts.doubled ?? []).some((server) =>
    valuesOf(server.answer).some((v) => servesExpected(expected, v)),
  );
  if (doubledInZone || doubledInDns)
    return {
      case: "wrong-name",
      summary: `the record is published at ${doubledName ?? `${bare(expected.name)} with the zone's name appended again`} instead of ${bare(expected.name)}`,
      action: "Publish it at the fully qualified name (or the name relative to the zone, never both).",
    };

  if (servers.length > 0 && answered.length === 0) return noAnswer(where, servers);
  return {
    case: "not-published",
    summary: `${where} is not published${servers.length > 0 ? ` (${describe(servers[0].answer)})` : ""}`,
    action: `Publish ${where} with the expected value (the domain's \`dnsRecords\` output).`,
  };
}

function noAnswer(where: string, servers: ServerAnswer[]): Diagnosis {
  return {
    case: "no-answer",
    summary: `no nameserver answered for ${where} (${servers.map((s) => `${s.server}: ${describe(s.answer)}`).join("; ")})`,
    action:
      "Check that the zone's nameservers are the ones its registrar delegates to, and that they answer.",
  };
}

/** `NXDOMAIN`, `no TXT records`, `"v=spf1 …"`, `timed out`: an answer in a few words. */
export function describe(answer: DnsAnswer): string {
  if ("nxdomain" in answer) return "NXDOMAIN";
  if ("error" in answer) return answer.error;
  return answer.values.length === 0 ? "no records" : answer.values.map((v) => JSON.stringify(v)).join(", ");
}

/** A name as people read it: the service's spelling (DKIM selectors are upper case), no final dot. */
function bare(name: string): string {
  return name.replace(/\.$/, "");
}
