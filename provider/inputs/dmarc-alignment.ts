/**
 * Whether a domain's DMARC rests on DKIM alone with nothing to verify DKIM. `aspf=s` (strict SPF
 * alignment) can never align with the service's envelope sender, the return path `psrp.<name>`
 * (RFC 7489 §3.1.2), so the domain's mail passes an enforcing DMARC policy by DKIM alone: a
 * verification that does not wait for DKIM then leaves it to receivers. One judgement, for the
 * `Domain`'s warning at preview and for the `email-dmarc-alignment` policy. Pure.
 */

/** Why nothing verifies the DKIM DMARC rests on; `"unknown"` while the checks are not known yet. */
export type DmarcOnDkimAlone = "verification is off" | "verification.checks leaves dkim out" | "unknown";

/**
 * Why DMARC rests on DKIM alone with no verification of DKIM, or undefined when it does not (relaxed
 * SPF alignment, `p=none`, no DMARC, or a verification that waits for DKIM).
 * @param dmarc the `Domain`'s `dmarc` settings
 * @param verification its `verification` settings: `false`, or the settings (`checks` defaults to all)
 */
export function dmarcRestsOnDkimAlone(
  dmarc: { policy?: unknown; spfAlignment?: unknown } | undefined,
  verification: false | { checks?: unknown } | undefined,
): DmarcOnDkimAlone | undefined {
  if (dmarc?.spfAlignment !== "strict" || dmarc.policy === "none") return undefined;
  if (verification === false) return "verification is off";
  const checks = verification?.checks;
  if (checks === undefined) return undefined; // the default waits for every check, dkim included
  if (!Array.isArray(checks)) return "unknown"; // an output: judged at the wait
  if (checks.includes("dkim")) return undefined;
  if (checks.some((check) => typeof check !== "string")) return "unknown";
  return "verification.checks leaves dkim out";
}
