/**
 * How receivers judge the mail the service sends for a domain, from DNS as served: SPF (RFC 7208)
 * for the envelope sender at the return path and for the domain's own record, from each address
 * family the service sends from; DKIM's key record (RFC 6376, RFC 8301) against the key the service
 * signs with; DMARC (RFC 7489) with alignment. The one model the verification's last step, the
 * doctor and the kit use; the policies judge declared records with its parts.
 */
import { CachedSpfResolver } from "../dns/spf-dns";
import type { ReceiverDns } from "./receiver-dns";
import { dmarcFinding, spfFinding, type ReceiverFinding } from "./findings";
import { dkimKeyProblem } from "./dkim-key";
import { discoverDmarc, DmarcOutcome, evaluateDmarc, TxtLookup } from "./dmarc-evaluation";
import { sendingAddresses, ServiceMail } from "./service-mail";
import { checkHost, SpfCheck } from "./spf-check-host";

/** A check's verdict: receivers pass it, fail it, or DNS did not answer enough to say. */
export type ReceiverVerdict = "pass" | "fail" | "unknown";

/** What receivers decide for the domain's mail. */
export interface ReceiversJudgement {
  /** Both identities below: what a verification records. */
  spf: ReceiverVerdict;
  /** SPF for the service's envelope sender (MAIL FROM), from each family: what decides its mail. */
  envelopeSpf: ReceiverVerdict;
  /** SPF for the domain's own record (the one the service checks and the package publishes). */
  domainSpf: ReceiverVerdict;
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
  /** SPF for the service's envelope sender and the domain's own record. */
  spf: ReceiverVerdict;
  /** DKIM: the key record lets the service's signatures pass. */
  dkim: ReceiverVerdict;
  /** DMARC; `none`: no DMARC policy governs the domain. */
  dmarc: ReceiverVerdict | "none";
  /** Whether receivers accept the mail for the checks asked; null when DNS did not let them judge. */
  accepted: boolean | null;
}

/** Which of the service's checks the verdict must hold for (the verification's `checks`). */
export interface JudgedChecks {
  /** The domain's own SPF record (the `spf` check). */
  spf: boolean;
  /** The envelope sender's SPF (the `spf` and `returnPath` checks: the return path carries it). */
  envelope: boolean;
  dkim: boolean;
}

/**
 * Receivers' verdict on `mail`, through `dns` (see `receiverResolver`). SPF passes when every
 * identity (the return path, the domain) passes from every family the service sends from; DKIM when
 * the key record lets the service's signatures pass; DMARC when one aligned pass exists.
 */
export async function judgeReceivers(mail: ServiceMail, dns: ReceiverDns): Promise<ReceiversJudgement> {
  const resolver = new CachedSpfResolver(dns);
  const findings: ReceiverFinding[] = [];
  const envelope = await envelopeDomain(mail, dns);
  if ("failure" in envelope) {
    findings.push({
      check: "spf",
      record: `CNAME ${mail.returnPath}`,
      receivers: `its lookup failed (${envelope.failure}): which domain the service's envelope sender is at cannot be told`,
      fix: "Check the domain's nameservers answer.",
      unknown: true,
    });
  }
  const at = "domain" in envelope ? envelope.domain : undefined;
  const spf = await judgeSpf(mail, at, resolver, findings);
  const verdictAt = (identity: string | undefined): ReceiverVerdict =>
    identity === undefined
      ? "unknown"
      : verdictOf(
          spf.checks.filter((check) => check.identity === identity),
          spf.judged,
        );
  const envelopeSpf = verdictAt(at);
  const domainSpf = verdictAt(mail.domain);
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
    const from = at ?? mail.returnPath ?? mail.domain;
    const outcome = evaluateDmarc(mail.domain, discovered, {
      spf: { result: envelopeSpf === "pass" ? "pass" : "fail", domain: from },
      dkim: { result: dkim === "pass" ? "pass" : "fail", domain: mail.domain },
    });
    dmarcPolicy = { ...outcome, record: discovered.name };
    dmarc =
      outcome.result === "pass"
        ? "pass"
        : envelopeSpf === "unknown" || dkim === "unknown"
          ? "unknown"
          : "fail";
    if (dmarc === "fail") findings.push(dmarcFinding(mail, discovered.name, outcome, from));
  }
  return {
    spf: worstVerdict([envelopeSpf, domainSpf]),
    envelopeSpf,
    domainSpf,
    dkim,
    dmarc,
    ...(dmarcPolicy ? { dmarcPolicy } : {}),
    spfChecks: spf.checks,
    findings,
  };
}

/**
 * Whether receivers accept the mail, for the checks asked: each asked check passes as receivers
 * judge it, DMARC passes where a policy governs the domain, and the envelope's SPF or DKIM passes.
 * A domain whose checks ask nothing of its outgoing mail (MX alone: inbound only) has none to
 * judge. Undefined when DNS left that open.
 */
export function receiversAccept(judgement: ReceiversJudgement, checks: JudgedChecks): boolean | undefined {
  if (!checks.spf && !checks.envelope && !checks.dkim) return true;
  const needed: ReceiverVerdict[] = [
    ...(checks.spf ? [judgement.domainSpf] : []),
    ...(checks.envelope ? [judgement.envelopeSpf] : []),
    ...(checks.dkim ? [judgement.dkim] : []),
    ...(judgement.dmarc === "none" ? [] : [judgement.dmarc]),
  ];
  const either: ReceiverVerdict =
    judgement.envelopeSpf === "pass" || judgement.dkim === "pass"
      ? "pass"
      : judgement.envelopeSpf === "unknown" || judgement.dkim === "unknown"
        ? "unknown"
        : "fail";
  const all = [...needed, either];
  if (all.includes("fail")) return false;
  return all.includes("unknown") ? undefined : true;
}

/** A verdict from SPF checks: unknown without any (no address to judge from) or with a temperror. */
function verdictOf(checks: readonly SpfCheck[], judged: boolean): ReceiverVerdict {
  if (!judged || checks.length === 0) return "unknown";
  if (checks.some((check) => check.result !== "pass" && check.result !== "temperror")) return "fail";
  return checks.some((check) => check.result === "temperror") ? "unknown" : "pass";
}

function worstVerdict(verdicts: readonly ReceiverVerdict[]): ReceiverVerdict {
  return verdicts.includes("fail") ? "fail" : verdicts.includes("unknown") ? "unknown" : "pass";
}

/**
 * The domain of the service's envelope sender: the domain's return path while it is an alias of
 * the installation's return-path host (what the service's return-path check asks), else that host
 * itself, as Postal chooses; the domain itself without a return-path record.
 */
async function envelopeDomain(
  mail: ServiceMail,
  dns: ReceiverDns,
): Promise<{ domain: string } | { failure: string }> {
  if (!mail.returnPath || !mail.returnPathHost) return { domain: mail.domain };
  try {
    const targets = await dns.cname(mail.returnPath);
    const points = targets.some((target) => target.toLowerCase().replace(/\.$/, "") === mail.returnPathHost);
    return { domain: points ? mail.returnPath : mail.returnPathHost };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // No such name, or no CNAME there: it does not point at the host.
    if (code === "ENOTFOUND" || code === "ENODATA") return { domain: mail.returnPathHost };
    return { failure: error instanceof Error ? error.message : String(error) };
  }
}

async function judgeSpf(
  mail: ServiceMail,
  envelope: string | undefined,
  resolver: CachedSpfResolver,
  findings: ReceiverFinding[],
): Promise<{ judged: boolean; checks: ReceiversJudgement["spfChecks"] }> {
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
    return { judged: false, checks: [] };
  }
  // The envelope's SPF decides the service's mail; the domain's own record, which the service's
  // check reads and the package publishes, is judged as receivers judge mail sent from the domain.
  const identities = [...new Set([...(envelope ? [envelope] : []), mail.domain])];
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
  return { judged: true, checks };
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
