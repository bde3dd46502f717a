/**
 * DMARC as receivers apply it (RFC 7489): which record governs a From domain (§6.6.3), and whether
 * mail passes it given what SPF and DKIM decided and for which domains (§3.1, §4.2). Pure but for
 * the TXT lookups the caller gives.
 */
import { getDomain } from "tldts";
import { dmarcRecordName, DmarcTags, parseDmarc } from "../dns/dmarc";

/**
 * The organizational domain (RFC 7489 §3.2): the registrable domain under the Public Suffix List,
 * private suffixes included (as OpenDMARC, rspamd and Mail::DMARC read the list), or the name
 * itself where the list gives none (a suffix, a single label).
 */
export function organizationalDomain(name: string): string {
  const bare = name.toLowerCase().replace(/\.$/, "");
  return getDomain(bare, { allowPrivateDomains: true }) ?? bare;
}

/** Whether an authenticated domain aligns with the From domain (RFC 7489 §3.1). */
export function aligned(authenticated: string, from: string, mode: "r" | "s"): boolean {
  const [a, b] = [authenticated, from].map((name) => name.toLowerCase().replace(/\.$/, ""));
  return mode === "s" ? a === b : organizationalDomain(a) === organizationalDomain(b);
}

/** A TXT lookup: the records (strings joined), or why there are none. */
export type TxtLookup = (name: string) => Promise<string[] | "void" | { failure: string }>;

/** The record that governs a From domain, as policy discovery finds it (RFC 7489 §6.6.3). */
export type DmarcDiscovery =
  | {
      found: true;
      name: string;
      tags: DmarcTags;
      /** Found at the organizational domain, not the From domain. */ atOrganization: boolean;
    }
  | {
      found: false;
      /** Where it stopped and why; `several` means DMARC is not applied at all. */ reason:
        "none" | "several";
      name: string;
      count?: number;
    }
  | { failure: string; name: string };

/**
 * Policy discovery: the DMARC records at `_dmarc.<from>`; none there, those at the organizational
 * domain's (never a parent in between). Several at the name that is asked ends discovery: DMARC is
 * then not applied to the mail at all (§6.6.3). A DNS failure is no answer, never "none".
 */
export async function discoverDmarc(from: string, lookup: TxtLookup): Promise<DmarcDiscovery> {
  const organization = organizationalDomain(from);
  const names = [
    dmarcRecordName(from),
    ...(organization !== from.toLowerCase() ? [dmarcRecordName(organization)] : []),
  ];
  for (const [index, name] of names.entries()) {
    const answer = await lookup(name);
    if (typeof answer === "object" && !Array.isArray(answer)) return { failure: answer.failure, name };
    const records = (answer === "void" ? [] : answer).flatMap((text) => {
      // Served text that starts with a quote does not start with `v=DMARC1`: discarded (§6.6.3).
      const tags = /^\s*"/.test(text) ? undefined : parseDmarc(text);
      return tags && usable(tags) ? [tags] : [];
    });
    if (records.length > 1) return { found: false, reason: "several", name, count: records.length };
    if (records.length === 1) return { found: true, name, tags: records[0], atOrganization: index > 0 };
  }
  return { found: false, reason: "none", name: names[0] };
}

/** What SPF and DKIM decided for the mail, and for which domains. */
export interface Authenticated {
  /** SPF's result for the envelope sender, and its domain. */
  spf: { result: string; domain: string };
  /** DKIM's result for the signature the service makes, and its `d=`. */
  dkim: { result: string; domain: string };
}

/**
 * A record receivers act on (RFC 7489 §6.3, §6.6.3): `v=DMARC1` exactly (the grammar spells it so;
 * `dns/dmarc.ts` reads other spellings for people), and a `p` that is a policy, or an `rua` to
 * report to (then read as `p=none`); any other record is discarded.
 */
function usable(tags: DmarcTags): boolean {
  if (tags.v !== "DMARC1") return false;
  const policy = (tags.p ?? "").toLowerCase();
  return ["none", "quarantine", "reject"].includes(policy) || /mailto:/i.test(tags.rua ?? "");
}

/** A DMARC policy: what receivers do with mail that fails (RFC 7489 §6.3). */
export type DmarcPolicyName = "none" | "quarantine" | "reject";

/** What DMARC decides for mail from `from` under a record found. */
export interface DmarcOutcome {
  /** `pass` when SPF or DKIM passes aligned with the From domain (RFC 7489 §4.2). */
  result: "pass" | "fail";
  /** The policy that applies to this From domain (`sp` at the organizational domain's record). */
  policy: DmarcPolicyName;
  /** Messages out of 100 the policy applies to (`pct`); the rest get the next-lower policy (§6.6.4). */
  percent: number;
  /** What failing mail gets, for the share the policy applies to and for the rest. */
  disposition: {
    /** For `percent` of the failing mail. */
    applied: DmarcPolicyName;
    /** For the rest. */
    rest: DmarcPolicyName;
  };
  /** SPF passed for a domain aligned with the From domain. */
  spfAligned: boolean;
  /** DKIM passed for a `d=` aligned with the From domain. */
  dkimAligned: boolean;
  /** SPF's alignment mode: relaxed (`r`, the default) or strict (`s`). */
  aspf: "r" | "s";
  /** DKIM's alignment mode. */
  adkim: "r" | "s";
}

const LOWER: Record<DmarcPolicyName, DmarcPolicyName> = {
  reject: "quarantine",
  quarantine: "none",
  none: "none",
};

/** DMARC's verdict for mail from `from` with `authenticated` under `found` (RFC 7489 §4.2, §6.3, §6.6). */
export function evaluateDmarc(
  from: string,
  found: Extract<DmarcDiscovery, { found: true }>,
  authenticated: Authenticated,
): DmarcOutcome {
  const { tags } = found;
  const mode = (value: string | undefined): "r" | "s" => (value?.toLowerCase() === "s" ? "s" : "r");
  const aspf = mode(tags.aspf);
  const adkim = mode(tags.adkim);
  const spfAligned = authenticated.spf.result === "pass" && aligned(authenticated.spf.domain, from, aspf);
  const dkimAligned = authenticated.dkim.result === "pass" && aligned(authenticated.dkim.domain, from, adkim);
  const policy = policyOf(found.atOrganization && tags.sp !== undefined ? tags.sp : tags.p, tags);
  const pct = dmarcPercent(tags.pct);
  return {
    result: spfAligned || dkimAligned ? "pass" : "fail",
    policy,
    percent: pct,
    disposition: dmarcDisposition(policy, pct),
    spfAligned,
    dkimAligned,
    aspf,
    adkim,
  };
}

/** `pct` as receivers read it: 0 to 100, else (absent or not a number) 100 (RFC 7489 §6.3). */
export function dmarcPercent(pct: string | undefined): number {
  return /^\d{1,3}$/.test(pct ?? "") ? Math.min(100, Number(pct)) : 100;
}

/**
 * What failing mail gets under `policy` at `percent` (RFC 7489 §6.6.4): the policy for the share
 * sampled, the next-lower policy for the rest (`p=quarantine; pct=0`: every message gets `none`).
 */
export function dmarcDisposition(policy: DmarcPolicyName, percent: number): DmarcOutcome["disposition"] {
  return { applied: percent > 0 ? policy : LOWER[policy], rest: percent < 100 ? LOWER[policy] : policy };
}

/** A `p`/`sp` value; one that is not a policy counts as `none` (§6.6.3: with a valid `rua`, as none). */
function policyOf(value: string | undefined, tags: DmarcTags): DmarcPolicyName {
  const policy = (value ?? tags.p ?? "").toLowerCase();
  return policy === "quarantine" || policy === "reject" ? policy : "none";
}
