/**
 * How receivers judge the mail the service sends for a domain, from DNS as served: SPF (RFC 7208)
 * for the envelope sender at the return path and for the domain's own record, from each address
 * family the service sends from; DKIM's key record (RFC 6376, RFC 8301) against the key the service
 * signs with; DMARC (RFC 7489) with alignment. The one model the verification's last step, the
 * doctor and the kit use; the policies judge declared records with its parts.
 */
import { CachedSpfResolver, SpfResolver } from "../dns/spf-dns";
import { dkimKeyProblem } from "./dkim-key";
import { discoverDmarc, DmarcOutcome, evaluateDmarc, TxtLookup } from "./dmarc-evaluation";
import { sendingAddresses, ServiceMail } from "./service-mail";
import { checkHost, SpfCheck } from "./spf-check-host";

/** A check's verdict: receivers pass it, fail it, or DNS did not answer enough to say. */
export type ReceiverVerdict = "pass" | "fail" | "unknown";

/** One thing receivers hold against the domain's mail. */
export interface ReceiverFinding {
  check: "spf" | "dkim" | "dmarc";
  /** The record concerned: `TXT mail.example.com`. */
  record: string;
  /** What receivers do with it, with the RFC. */
  receivers: string;
  /** What to change. */
  fix: string;
  /** DNS did not answer: not a rejection, but never a pass. */
  unknown?: boolean;
}

/** What receivers decide for the domain's mail. */
export interface ReceiversJudgement {
  spf: ReceiverVerdict;
  dkim: ReceiverVerdict;
  /** `none`: the domain publishes no DMARC policy (nor its organizational domain). */
  dmarc: ReceiverVerdict | "none";
  /** The DMARC policy found and what it decides, when one governs the domain. */
  dmarcPolicy?: DmarcOutcome & { record: string };
  /** Every SPF check made: identity, family, result. */
  spfChecks: (SpfCheck & { identity: string; ip: string })[];
  findings: ReceiverFinding[];
}

/** What receivers decided for a domain's mail, check by check: what a verification records. */
export interface ReceiversVerdicts {
  spf: ReceiverVerdict;
  dkim: ReceiverVerdict;
  /** `none`: no DMARC policy governs the domain. */
  dmarc: ReceiverVerdict | "none";
  /** Whether receivers accept the mail for the checks asked; null when DNS did not let them judge. */
  accepted: boolean | null;
}

/** Which of the service's checks the verdict must hold for (the verification's `checks`). */
export interface JudgedChecks {
  spf: boolean;
  dkim: boolean;
}

/**
 * Receivers' verdict on `mail`, through `dns` (see `receiverResolver`). SPF passes when every
 * identity (the return path, the domain) passes from every family the service sends from; DKIM when
 * the key record lets the service's signatures pass; DMARC when one aligned pass exists.
 */
export async function judgeReceivers(mail: ServiceMail, dns: SpfResolver): Promise<ReceiversJudgement> {
  const resolver = new CachedSpfResolver(dns);
  const findings: ReceiverFinding[] = [];
  const spf = await judgeSpf(mail, resolver, findings);
  const dkim = await judgeDkim(mail, resolver, findings);
  const lookup: TxtLookup = async (name) => {
    const answer = await resolver.query("txt", name);
    if ("failure" in answer) return { failure: answer.failure };
    return "void" in answer ? "void" : answer.records.map((strings) => strings.join(""));
  };
  const discovered = await discoverDmarc(mail.domain, lookup);
  let dmarc: ReceiversJudgement["dmarc"];
  let dmarcPolicy: ReceiversJudgement["dmarcPolicy"];
  if ("failure" in discovered) {
    dmarc = "unknown";
    findings.push({
      check: "dmarc",
      record: `TXT ${discovered.name}`,
      receivers: `its lookup failed (${discovered.failure}): receivers cannot apply DMARC now (temperror, RFC 7489 §6.6.3)`,
      fix: "Check the domain's nameservers answer.",
      unknown: true,
    });
  } else if (!discovered.found) {
    dmarc = discovered.reason === "none" ? "none" : "fail";
    if (discovered.reason === "several")
      findings.push({
        check: "dmarc",
        record: `TXT ${discovered.name}`,
        receivers: `${discovered.count} DMARC records are served there: receivers then apply no DMARC policy at all (RFC 7489 §6.6.3)`,
        fix: "Keep one DMARC record there: remove the others, or merge their tags into one.",
      });
  } else {
    const envelope = mail.returnPath ?? mail.domain;
    const envelopeSpf = spf.checks.filter((check) => check.identity === envelope);
    const outcome = evaluateDmarc(mail.domain, discovered, {
      spf: { result: worst(envelopeSpf.map((c) => c.result)), domain: envelope },
      dkim: { result: dkim === "pass" ? "pass" : "fail", domain: mail.domain },
    });
    dmarcPolicy = { ...outcome, record: discovered.name };
    dmarc =
      outcome.result === "pass"
        ? "pass"
        : spf.verdict === "unknown" || dkim === "unknown"
          ? "unknown"
          : "fail";
    if (dmarc === "fail") findings.push(dmarcFinding(mail, discovered.name, outcome, envelope));
  }
  return {
    spf: spf.verdict,
    dkim,
    dmarc,
    ...(dmarcPolicy ? { dmarcPolicy } : {}),
    spfChecks: spf.checks,
    findings,
  };
}

/**
 * Whether receivers accept the mail, for the checks asked: each asked check passes, DMARC passes
 * where one governs the domain, and SPF or DKIM passes. Undefined when DNS left that open.
 */
export function receiversAccept(judgement: ReceiversJudgement, checks: JudgedChecks): boolean | undefined {
  const needed: ReceiverVerdict[] = [
    ...(checks.spf ? [judgement.spf] : []),
    ...(checks.dkim ? [judgement.dkim] : []),
    ...(judgement.dmarc === "none" ? [] : [judgement.dmarc]),
  ];
  const either: ReceiverVerdict =
    judgement.spf === "pass" || judgement.dkim === "pass"
      ? "pass"
      : judgement.spf === "unknown" || judgement.dkim === "unknown"
        ? "unknown"
        : "fail";
  const all = [...needed, either];
  if (all.includes("fail")) return false;
  return all.includes("unknown") ? undefined : true;
}

const ORDER = ["pass", "none", "neutral", "softfail", "fail", "temperror", "permerror"];

function worst(results: readonly string[]): string {
  return results.reduce((a, b) => (ORDER.indexOf(b) > ORDER.indexOf(a) ? b : a), "pass");
}

async function judgeSpf(
  mail: ServiceMail,
  resolver: CachedSpfResolver,
  findings: ReceiverFinding[],
): Promise<{ verdict: ReceiverVerdict; checks: ReceiversJudgement["spfChecks"] }> {
  const addresses = await sendingAddresses(mail.spfIncludes, resolver);
  if ("failure" in addresses || (!addresses.ipv4 && !addresses.ipv6)) {
    const failed = "failure" in addresses;
    findings.push({
      check: "spf",
      record: `TXT ${mail.spfIncludes.join(", ") || mail.domain}`,
      receivers: failed
        ? `the service's addresses could not be read from its include: ${addresses.failure}`
        : "the service's include lists no address its mail can be judged from",
      fix: failed
        ? "Check that DNS answers for the service's include."
        : "Ask the service which addresses it sends from.",
      unknown: true,
    });
    return { verdict: "unknown", checks: [] };
  }
  const identities = [...new Set([mail.returnPath ?? mail.domain, mail.domain])];
  const checks: ReceiversJudgement["spfChecks"] = [];
  for (const identity of identities) {
    for (const ip of [addresses.ipv4, addresses.ipv6].filter((a): a is string => a !== undefined)) {
      const sender = `${identity === mail.domain ? "postmaster" : "bounces"}@${identity}`;
      const check = await checkHost({ ip, domain: identity, sender, helo: mail.helo }, resolver);
      checks.push({ ...check, identity, ip });
    }
  }
  const failing = checks.filter((check) => check.result !== "pass");
  const reported = new Set<string>();
  for (const check of failing) {
    const key = `${check.identity} ${check.result} ${check.reason}`;
    if (reported.has(key)) continue;
    reported.add(key);
    findings.push(spfFinding(mail, check));
  }
  const verdict: ReceiverVerdict =
    failing.length === 0
      ? "pass"
      : failing.every((check) => check.result === "temperror")
        ? "unknown"
        : "fail";
  return { verdict, checks };
}

function spfFinding(mail: ServiceMail, check: SpfCheck & { identity: string; ip: string }): ReceiverFinding {
  const envelope = check.identity !== mail.domain;
  const whose = envelope
    ? `the envelope sender's domain (the return path ${check.identity})`
    : `the domain's own record`;
  const include = mail.spfIncludes.map((domain) => `include:${domain}`).join(" ");
  const fix =
    check.result === "temperror"
      ? "Check that the domain's nameservers and the records it includes answer."
      : check.reason.includes("SPF records: a name may have one")
        ? `Keep one SPF record at ${check.identity}: merge the others into it (with ${include}).`
        : check.result === "permerror"
          ? `Correct the record at ${check.identity} (the term named above).`
          : envelope
            ? `Point ${check.identity} at the service's return-path host (the domain's return_path record), whose SPF record authorizes the service.`
            : `Authorize the service in the record at ${check.identity}: ${include || "the service's include"} before its all.`;
  return {
    check: "spf",
    record: `TXT ${check.identity}`,
    receivers: `mail from ${check.ip} gets SPF ${check.result} for ${whose}: ${check.reason}${check.via.length ? ` (through ${check.via.join(" → ")})` : ""}`,
    fix,
    ...(check.result === "temperror" ? { unknown: true } : {}),
  };
}

async function judgeDkim(
  mail: ServiceMail,
  resolver: CachedSpfResolver,
  findings: ReceiverFinding[],
): Promise<ReceiverVerdict> {
  if (!mail.dkim) return "fail";
  const answer = await resolver.query("txt", mail.dkim.name);
  if ("failure" in answer) {
    findings.push({
      check: "dkim",
      record: `TXT ${mail.dkim.name}`,
      receivers: `its lookup failed (${answer.failure}): verifiers cannot check the signature now (temperror, RFC 6376 §6.1.2)`,
      fix: "Check the domain's nameservers answer.",
      unknown: true,
    });
    return "unknown";
  }
  const served = "records" in answer ? answer.records.map((strings) => strings.join("")) : [];
  const problem = dkimKeyProblem(served, mail.dkim.value);
  if (!problem) return "pass";
  findings.push({ check: "dkim", record: `TXT ${mail.dkim.name}`, ...problem });
  return "fail";
}

function dmarcFinding(
  mail: ServiceMail,
  record: string,
  outcome: DmarcOutcome,
  envelope: string,
): ReceiverFinding {
  const strictSpf = outcome.aspf === "s" && envelope !== mail.domain;
  const why = [
    strictSpf
      ? `SPF cannot align: aspf=s needs the envelope sender at ${mail.domain} itself, and the service's is at ${envelope}`
      : outcome.spfAligned
        ? undefined
        : "SPF does not pass aligned",
    outcome.dkimAligned ? undefined : "DKIM does not pass aligned",
  ]
    .filter(Boolean)
    .join("; ");
  const gets =
    outcome.disposition.applied === outcome.disposition.rest
      ? outcome.disposition.applied
      : `${outcome.disposition.applied} (${outcome.percent}%; the rest ${outcome.disposition.rest})`;
  return {
    check: "dmarc",
    record: `TXT ${record}`,
    receivers: `the service's mail fails DMARC (${why}), and p=${outcome.policy} gives it: ${gets} (RFC 7489 §3.1, §6.6.4)`,
    fix: strictSpf
      ? "Use relaxed SPF alignment (drop aspf=s), or make DKIM pass: publish the service's DKIM record and wait for the dkim check."
      : "Make SPF or DKIM pass for the service's mail (the findings above).",
  };
}
