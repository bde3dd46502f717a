/**
 * Receivers' verdict on one message as it arrives: SPF for its envelope sender from its client
 * (RFC 7208), each DKIM signature (RFC 6376), and DMARC for its From domain with alignment (RFC
 * 7489). The same parts `judgeReceivers` judges a domain's posture with, applied to mail that was
 * sent: what the test kit tells a user of a message the emulator signed and sent.
 */
import { CachedSpfResolver, type SpfResolver } from "../dns/spf-dns";
import { headerName, splitMessage, verifyDkim, type DkimVerification } from "./dkim-message";
import {
  discoverDmarc,
  evaluateDmarc,
  type DmarcDiscovery,
  type DmarcOutcome,
  type TxtLookup,
} from "./dmarc-evaluation";
import { checkHost, type SpfCheck } from "./spf-check-host";

/** A message as a receiver meets it: the bytes, and what the SMTP session said. */
export interface ArrivingMessage {
  /** The message (RFC 5322), header and body. */
  raw: string;
  /** The envelope sender (MAIL FROM); empty for a bounce. */
  mailFrom: string;
  /** The client's address. */
  clientIp: string;
  /** The name the client gave in HELO. */
  helo: string;
}

/** What receivers decide for one message. */
export interface MessageJudgement {
  /** The From domain DMARC judges. */
  fromDomain?: string;
  /** SPF for the envelope sender's domain (`domain`; HELO's for a bounce) from the client. */
  spf: SpfCheck & {
    /** The domain whose record was evaluated. */
    domain: string;
  };
  /** Each DKIM signature's verdict, in the order they appear (one `none` without any). */
  dkim: DkimVerification[];
  /** DMARC: the policy found and its verdict; `none` when no policy governs the From domain. */
  dmarc:
    | (DmarcOutcome & {
        /** Where the policy was found (`_dmarc.<domain>`, or the organizational domain's). */
        record: string;
      })
    | {
        /** `none`: no policy governs the From domain; `temperror`: its lookup failed. */
        result: "none" | "temperror";
        /** Why, in words. */
        reason: string;
      };
}

/** The From field's domain (the last address's, after `@`), lowercase. */
export function fromDomain(raw: string): string | undefined {
  const field = splitMessage(raw).fields.find((candidate) => headerName(candidate) === "from");
  const address = field?.slice(field.indexOf(":") + 1).replace(/\r?\n[ \t]/g, " ");
  const match = address && /@([^\s>@,;]+)\s*>?\s*$/.exec(address);
  return match?.[1].toLowerCase().replace(/\.$/, "");
}

/** Judges `message` through `dns` as a receiver would. */
export async function judgeMessage(message: ArrivingMessage, dns: SpfResolver): Promise<MessageJudgement> {
  const resolver = new CachedSpfResolver(dns);
  const from = fromDomain(message.raw);
  // A bounce (null sender) is judged by its HELO identity (RFC 7208 §2.4).
  const envelope = message.mailFrom.includes("@")
    ? message.mailFrom.slice(message.mailFrom.lastIndexOf("@") + 1).toLowerCase()
    : message.helo.toLowerCase();
  const sender = message.mailFrom || `postmaster@${envelope}`;
  const spf = {
    ...(await checkHost({ ip: message.clientIp, domain: envelope, sender, helo: message.helo }, resolver)),
    domain: envelope,
  };
  const dkim = await verifyDkim(message.raw, async (name) => {
    const answer = await resolver.query("txt", name);
    if ("failure" in answer) return "error";
    return "void" in answer ? "nxdomain" : answer.records.map((strings) => strings.join(""));
  });
  if (!from) return { spf, dkim, dmarc: { result: "none", reason: "the message has no From address" } };
  const lookup: TxtLookup = async (name) => {
    const answer = await resolver.query("txt", name);
    if ("failure" in answer) return { failure: answer.failure };
    return "void" in answer ? "void" : answer.records.map((strings) => strings.join(""));
  };
  const found: DmarcDiscovery = await discoverDmarc(from, lookup);
  if ("failure" in found)
    return {
      fromDomain: from,
      spf,
      dkim,
      dmarc: { result: "temperror", reason: `${found.name}: ${found.failure}` },
    };
  if (!found.found)
    return {
      fromDomain: from,
      spf,
      dkim,
      dmarc: {
        result: "none",
        reason:
          found.reason === "several"
            ? `${found.count} DMARC records at ${found.name}: none applies`
            : "no DMARC policy",
      },
    };
  // DMARC takes the passing signature whose d= aligns, if there is one (RFC 7489 §4.2).
  // A signature from a key in testing mode (t=y) counts as none (RFC 6376 §3.6.1).
  const passing = dkim.filter(
    (signature) => signature.result === "pass" && signature.domain && !signature.testing,
  );
  const aligned =
    passing.find((signature) => signature.domain === from) ??
    passing.find(
      (signature) =>
        evaluateDmarc(from, found, { spf, dkim: { result: "pass", domain: signature.domain! } }).dkimAligned,
    );
  const outcome = evaluateDmarc(from, found, {
    spf: { result: spf.result, domain: envelope },
    dkim: aligned ? { result: "pass", domain: aligned.domain! } : { result: "fail", domain: from },
  });
  return { fromDomain: from, spf, dkim, dmarc: { ...outcome, record: found.name } };
}
