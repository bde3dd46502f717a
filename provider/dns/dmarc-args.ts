/**
 * DMARC (RFC 7489) settings as a program gives them: the policy a domain publishes at
 * `_dmarc.<domain>`, its reports and alignment. Checked by `dmarcProblems`, written by
 * `dmarcRecordContent`.
 */

/** The label DMARC policies are published under (RFC 7489 §6.1). */
export const DMARC_RECORD_PREFIX = "_dmarc";

/** What receivers do with mail that fails DMARC: report only, treat as suspicious, refuse it. */
export const DMARC_POLICIES = ["none", "quarantine", "reject"] as const;
/** One of {@link DMARC_POLICIES}. */
export type DmarcPolicy = (typeof DMARC_POLICIES)[number];

/** How closely the From domain must match the domain SPF or DKIM authenticated. */
export const DMARC_ALIGNMENTS = ["relaxed", "strict"] as const;
/** One of {@link DMARC_ALIGNMENTS}. */
export type DmarcAlignment = (typeof DMARC_ALIGNMENTS)[number];

/** When a failure report is asked for (the `fo` tag's `0`, `1`, `d`, `s`, in that order). */
export const DMARC_FAILURE_REPORT_OPTIONS = ["allFail", "anyFail", "dkimFail", "spfFail"] as const;
/** One of {@link DMARC_FAILURE_REPORT_OPTIONS}. */
export type DmarcFailureReportOption = (typeof DMARC_FAILURE_REPORT_OPTIONS)[number];

/**
 * A DMARC policy, written with readable names; each becomes one tag of the record. Settings left
 * out, or set to their default, are left out of the record (receivers apply the same defaults).
 */
export interface DmarcArgs {
  /**
   * The `p` tag: what receivers should do with mail from the domain that fails DMARC.
   * `"none"` only asks for reports (start here, with `aggregateReports`, to see who sends as the
   * domain); `"quarantine"` asks them to treat it as suspicious (usually the spam folder);
   * `"reject"` asks them to refuse it. Required.
   * @example "quarantine"
   */
  policy: DmarcPolicy;
  /**
   * The `sp` tag: the policy for subdomains of the domain (`news.example.com` under
   * `example.com`). Same values as `policy`. Left out of the record when it equals `policy`.
   * @default the value of `policy`
   * @example "reject"
   */
  subdomainPolicy?: DmarcPolicy;
  /**
   * The `rua` tag: where receivers send aggregate reports (daily XML summaries of who sent mail
   * as the domain and whether it passed). At least one `mailto:` URI, each with one address
   * (RFC 7489 §6.2; receivers need not support other schemes, so `https:` is refused). A URI may
   * end in a size limit, `!` and a number with an optional unit `k`, `m`, `g` or `t`
   * (`"mailto:dmarc@example.com!10m"`). Within an address, `,` `;` `!` `%` `?` `#` and what a URI
   * cannot carry (spaces, quotes, `^` `{` `|` `}`…) are percent-encoded (`%2C`, `%3B`, `%21`…);
   * international domains are given in punycode.
   * Receivers must send to at least two URIs and may ignore more (RFC 7489 §6.2).
   *
   * An address in another domain receives reports only if that domain authorizes it with a TXT
   * record `v=DMARC1` at `<this domain>._report._dmarc.<its domain>` (RFC 7489 §7.1), e.g.
   * `example.com._report._dmarc.reports.example.net` for `mailto:dmarc@reports.example.net`.
   * @default none: no aggregate reports are asked for
   * @example ["mailto:dmarc@example.com"]
   */
  aggregateReports?: string[];
  /**
   * The `ruf` tag: where receivers send failure reports (one per failing message, with its
   * headers; many large receivers send none, for privacy). Same rules as `aggregateReports`,
   * including the authorization of addresses in other domains (RFC 7489 §7.1).
   * @default none: no failure reports are asked for
   * @example ["mailto:dmarc-failures@example.com"]
   */
  failureReports?: string[];
  /**
   * The `pct` tag: the percentage of failing mail the policy applies to, a whole number from 0 to
   * 100; the rest is handled one step milder (`reject` as `quarantine`, `quarantine` as `none`).
   * For a gradual roll-out of `quarantine` or `reject`. Left out of the record at 100.
   * @default 100
   * @example 25
   */
  percent?: number;
  /**
   * The `adkim` tag: DKIM alignment. `"relaxed"` accepts a DKIM signature of the same
   * organizational domain (`mail.example.com` for `example.com`); `"strict"` only of exactly the
   * From domain. Left out of the record when relaxed.
   * @default "relaxed"
   * @example "strict"
   */
  dkimAlignment?: DmarcAlignment;
  /**
   * The `aspf` tag: SPF alignment, as `dkimAlignment` but for the domain SPF checked (the
   * envelope sender). The service sends with its return path, a subdomain of the sending domain
   * (`psrp.mail.example.com`, Postal's default), which only `"relaxed"` aligns: with `"strict"`,
   * DMARC rests on DKIM alone. Left out of the record when relaxed.
   * @default "relaxed"
   * @example "strict"
   */
  spfAlignment?: DmarcAlignment;
  /**
   * The `fo` tag: which failures produce a failure report; only with `failureReports` (receivers
   * ignore it without `ruf`). Any of `"allFail"` (`0`: SPF and DKIM both failed to give an aligned
   * pass), `"anyFail"` (`1`: either did), `"dkimFail"` (`d`: a DKIM signature failed to verify,
   * aligned or not), `"spfFail"` (`s`: SPF failed, aligned or not); each once. Written in that
   * order whatever the order given; left out of the record when it is `["allFail"]`.
   * @default ["allFail"]
   * @example ["anyFail"]
   */
  failureReportOptions?: DmarcFailureReportOption[];
}

/** Each setting and the tag it writes, in the record's order (after `v` and `p`). */
export const SETTINGS: Record<keyof DmarcArgs, string> = {
  policy: "p",
  subdomainPolicy: "sp",
  dkimAlignment: "adkim",
  spfAlignment: "aspf",
  percent: "pct",
  aggregateReports: "rua",
  failureReports: "ruf",
  failureReportOptions: "fo",
};
