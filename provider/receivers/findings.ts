/**
 * What receivers hold against a domain's mail, in words: each finding names the record, what
 * receivers do with it (with the RFC), and what to change.
 */
import type { DmarcOutcome } from "./dmarc-evaluation";
import type { ServiceMail } from "./service-mail";
import type { SpfCheck } from "./spf-check-host";

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

export function spfFinding(
  mail: ServiceMail,
  check: SpfCheck & { identity: string; ip: string },
): ReceiverFinding {
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

export function dmarcFinding(
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
