import {
  DMARC_FAILURE_REPORT_OPTIONS,
  DMARC_RECORD_PREFIX,
  DmarcArgs,
  DmarcFailureReportOption,
} from "./dmarc-args";
import { dmarcProblems, DmarcSettingsError } from "../inputs/dmarc-inputs";
import { unquoteTxt } from "./txt";

/**
 * DMARC (RFC 7489): the policy a domain publishes as a TXT record at `_dmarc.<domain>`, telling
 * receivers what to do with mail that fails SPF and DKIM alignment and where to send reports.
 * The email service does not check it, so nothing waits for it. Plain functions only: the
 * settings are checked when the program runs, so a mistake fails `pulumi preview`.
 */

/** A DMARC record's tags by lowercase name, values as written (`{ v: "DMARC1", p: "reject" }`). */
export type DmarcTags = Record<string, string>;

/** The `fo` tag's character for each option. */
const FAILURE_REPORT_OPTION_TAGS: Record<DmarcFailureReportOption, string> = {
  allFail: "0",
  anyFail: "1",
  dkimFail: "d",
  spfFail: "s",
};

/** `_dmarc.example.com` for `example.com`: lowercase, without a trailing dot (as Cloudflare names it). */
export function dmarcRecordName(domain: string): string {
  return `${DMARC_RECORD_PREFIX}.${domain.toLowerCase().replace(/\.$/, "")}`;
}

/**
 * The record's TXT content, unquoted: `v=DMARC1; p=…` first, then `sp`, `adkim`, `aspf`, `pct`,
 * `rua`, `ruf`, `fo`, each only when it differs from its default; URIs in the order given, joined
 * by `,`. The same settings always give the same text. Give it to `quoteTxt` (or to
 * `cloudflareRecordArgs` as a TXT record) for Cloudflare: a long list of URIs runs past one
 * 255-byte TXT string. Throws, listing the problems (also as the error's `problems`), when
 * `dmarcProblems` finds any.
 * @example dmarcRecordContent({ policy: "reject", aggregateReports: ["mailto:dmarc@example.com"] })
 *   // "v=DMARC1; p=reject; rua=mailto:dmarc@example.com"
 */
export function dmarcRecordContent(args: DmarcArgs): string {
  const problems = dmarcProblems(args);
  if (problems.length > 0) throw new DmarcSettingsError(problems);
  const tags: [string, string][] = [
    ["v", "DMARC1"],
    ["p", args.policy],
  ];
  const subdomainPolicy = args.subdomainPolicy ?? args.policy;
  if (subdomainPolicy !== args.policy) tags.push(["sp", subdomainPolicy]);
  if (args.dkimAlignment === "strict") tags.push(["adkim", "s"]);
  if (args.spfAlignment === "strict") tags.push(["aspf", "s"]);
  if ((args.percent ?? 100) !== 100) tags.push(["pct", String(args.percent)]);
  if (args.aggregateReports) tags.push(["rua", args.aggregateReports.join(",")]);
  if (args.failureReports) tags.push(["ruf", args.failureReports.join(",")]);
  const options = DMARC_FAILURE_REPORT_OPTIONS.filter((option) =>
    args.failureReportOptions?.includes(option),
  );
  if (options.length > 0 && !(options.length === 1 && options[0] === "allFail")) {
    tags.push(["fo", options.map((option) => FAILURE_REPORT_OPTION_TAGS[option]).join(":")]);
  }
  return tags.map(([tag, value]) => `${tag}=${value}`).join("; ");
}

/**
 * The tags of a DMARC record, or undefined for text that is not one. Takes a record's text as a
 * resolver joins it, or TXT content as Cloudflare stores it (quoted strings, see `quoteTxt`).
 *
 * A DMARC record starts with the `v=DMARC1` tag (RFC 7489 §6.3, §6.6.3); whitespace around `=`
 * and `;` is allowed, tag names are read in any letter case, and so is `DMARC1` (the RFC's
 * grammar spells the value in capitals, as `dmarcRecordContent` writes it, but a record written
 * `v=dmarc1` is evidently meant as one, and some receivers read it so). The rest is read as
 * `tag=value` pairs separated by `;`: names lowercase, values as written without surrounding
 * whitespace. A piece that is not a pair is skipped (receivers ignore what they cannot parse); a
 * tag given twice keeps its first value. The tags are not checked further: this reads records,
 * `dmarcProblems` judges settings.
 */
export function parseDmarc(text: string): DmarcTags | undefined {
  if (typeof text !== "string") return undefined;
  // A DMARC record cannot start with a quote: quoted text is TXT content.
  const record = /^\s*"/.test(text) ? unquoteTxt(text) : text;
  const [first, ...rest] = record.split(";");
  const version = /^[ \t\r\n]*v[ \t\r\n]*=[ \t\r\n]*(DMARC1)[ \t\r\n]*$/i.exec(first);
  if (!version) return undefined;
  const tags: DmarcTags = { v: version[1] };
  for (const piece of rest) {
    const pair = /^[ \t\r\n]*([A-Za-z][A-Za-z0-9_]*)[ \t\r\n]*=([^]*)$/.exec(piece);
    if (!pair) continue;
    const name = pair[1].toLowerCase();
    if (!Object.hasOwn(tags, name)) tags[name] = pair[2].replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
  }
  return tags;
}

/** True for a DMARC record's text or TXT content (it starts with `v=DMARC1`; see `parseDmarc`). */
export function isDmarcRecord(text: string): boolean {
  return parseDmarc(text) !== undefined;
}
