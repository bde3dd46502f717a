import { isSpfRecord } from "../dns/spf-record";
import { unquoteTxt } from "../dns/txt";
import type { DnsAnswer } from "../dns/dns-query";
import { sameName, type Diagnosis, type DiagnosisFacts, type ServerAnswer } from "./diagnosis-facts";
import { answerServes, includeSpelling, servesExpected, valuesOf } from "./serves";

/**
 * Why one of the service's checks fails, from facts alone: the record the service expects, what
 * the zone holds, what each authoritative nameserver and a recursive resolver answer, and what
 * the service says. Pure, so the verification's failure, the doctor command and a DNS-first wait
 * all classify alike; gathering the facts is `dns-facts.ts`, wording them `report-text.ts`.
 *
 * Comparisons follow `dns/zone-records.ts`: TXT unquoted (strings joined, as resolvers join
 * them), host names without letter case or a final dot.
 */

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
    const spelling = expected.purpose === "spf" ? includeSpelling(expected, servers) : undefined;
    if (spelling)
      return {
        case: "spf-include-spelling",
        summary:
          `the SPF record served names the service's include as "${spelling.written}", and the service matches ` +
          `"include:${spelling.include}" letter for letter (receivers compare without case, RFC 7208 §4.3)`,
        action: `Write it as include:${spelling.include}; a Domain with \`existingRecords.spf: "merge"\` respells it.`,
      };
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

  if (facts.cname && expected.type.toUpperCase() !== "CNAME")
    return {
      case: "cname",
      summary:
        `${bare(expected.name)} is a CNAME to ${facts.cname.target} (${facts.cname.server}), not a ${expected.type.toUpperCase()} ` +
        "record: a name with a CNAME holds nothing else, and what the target serves is not the expected record",
      action: `Delete the CNAME and publish ${where} with the expected value (the domain's \`dnsRecords\` output).`,
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
  const servesAt = (answers: ServerAnswer[] | undefined) =>
    (answers ?? []).some((server) => valuesOf(server.answer).some((v) => servesExpected(expected, v)));
  // A wildcard answers at the doubled name as at any name no one publishes: that is not the record.
  const wildcard = servesAt(facts.wildcard);
  const doubledInDns = servesAt(facts.doubled) && !wildcard;
  if (wildcard && !doubledInZone)
    return {
      case: "wildcard",
      summary:
        `a wildcard record of the zone serves the expected value at names that have no records, but ` +
        `${bare(expected.name)} has records of its own, so the wildcard does not answer there (RFC 4592 §2.2)`,
      action: `Publish ${where} at the name itself with the expected value.`,
    };
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
