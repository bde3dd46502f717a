import { CheckStatus } from "../store/state";
import { dnsCheckTexts } from "./messages";

/**
 * Postal's domain DNS check (`HasDNSChecks`, Postal's `app/models/concerns/has_dns_checks.rb`) as a pure function: what the
 * domain should publish plus what DNS answered in, the eight status/error fields out. The
 * resolver's own normalisation (TXT stripped, CNAME lower-cased) happens here too, so the
 * function takes answers exactly as a DNS library returns them.
 */

export interface DnsCheckExpectation {
  /** The domain name (apex). */
  domain: string;
  spfInclude: string;
  dkimHost: string;
  /** The full DKIM TXT value we told the user to publish. */
  dkimRecord: string;
  mxRecords: readonly string[];
  returnPathHost: string;
  returnPathDomain: string;
}

export interface DnsAnswers {
  /** TXT at the apex, each record's strings already concatenated. */
  apexTxt: readonly string[];
  /** TXT at the DKIM host, each record's strings already concatenated. */
  dkimTxt: readonly string[];
  /** MX exchanges at the apex (priority plays no part). */
  mxExchanges: readonly string[];
  /** CNAME targets at the return-path host. */
  returnPathCnames: readonly string[];
}

/** Field names as on `DomainRecord`, so a result can be assigned onto one. */
export interface DnsCheckResult {
  spfStatus: CheckStatus;
  spfError: string | null;
  dkimStatus: CheckStatus;
  dkimError: string | null;
  mxStatus: CheckStatus;
  mxError: string | null;
  returnPathStatus: CheckStatus;
  returnPathError: string | null;
}

interface Outcome {
  status: CheckStatus;
  error: string | null;
}

const ok: Outcome = { status: "OK", error: null };
const missing = (error: string): Outcome => ({ status: "Missing", error });
const invalid = (error: string): Outcome => ({ status: "Invalid", error });

export function evaluateDnsCheck(expected: DnsCheckExpectation, answers: DnsAnswers): DnsCheckResult {
  const spf = checkSpf(
    expected,
    answers.apexTxt.map((text) => text.trim()),
  );
  const dkim = checkDkim(
    expected,
    answers.dkimTxt.map((text) => text.trim()),
  );
  const mx = checkMx(expected, answers.mxExchanges);
  const returnPath = checkReturnPath(
    expected,
    answers.returnPathCnames.map((name) => name.toLowerCase()),
  );
  return {
    spfStatus: spf.status,
    spfError: spf.error,
    dkimStatus: dkim.status,
    dkimError: dkim.error,
    mxStatus: mx.status,
    mxError: mx.error,
    returnPathStatus: returnPath.status,
    returnPathError: returnPath.error,
  };
}

function checkSpf(expected: DnsCheckExpectation, apexTxt: string[]): Outcome {
  const spfRecords = apexTxt.filter((text) => text.startsWith("v=spf1"));
  if (spfRecords.length === 0) return missing(dnsCheckTexts.spfMissing);
  // A substring match, as Postal's regexp: `include:` then optional whitespace then the host.
  const include = new RegExp(`include:\\s*${escapeRegExp(expected.spfInclude)}`);
  if (!spfRecords.some((text) => include.test(text))) {
    return invalid(dnsCheckTexts.spfWithoutInclude(expected.spfInclude));
  }
  return ok;
}

function checkDkim(expected: DnsCheckExpectation, dkimTxt: string[]): Outcome {
  const host = expected.dkimHost;
  if (dkimTxt.length === 0) return missing(dnsCheckTexts.dkimMissing(host));
  // The count is checked before the content.
  if (dkimTxt.length > 1) return invalid(dnsCheckTexts.dkimTooMany(dkimTxt.length, host));
  const first = dkimTxt[0];
  const sanitised = first.endsWith(";") ? first : `${first};`;
  if (sanitised !== expected.dkimRecord) return invalid(dnsCheckTexts.dkimMismatch(host));
  return ok;
}

function checkMx(expected: DnsCheckExpectation, exchanges: readonly string[]): Outcome {
  if (exchanges.length === 0) return missing(dnsCheckTexts.mxMissing(expected.domain));
  const found = new Set(exchanges.map((exchange) => exchange.toLowerCase()));
  const wanted = expected.mxRecords.map((host) => host.toLowerCase());
  const absent = wanted.filter((host) => !found.has(host));
  if (absent.length === 0) return ok;
  // Foreign MX records are fine; having none of ours is "Missing", some of ours "Invalid".
  if (absent.length === wanted.length) return missing(dnsCheckTexts.mxNoneOurs);
  return invalid(dnsCheckTexts.mxSomeMissing(absent));
}

function checkReturnPath(expected: DnsCheckExpectation, cnames: string[]): Outcome {
  const host = expected.returnPathHost;
  if (cnames.length === 0) return missing(dnsCheckTexts.returnPathMissing(host));
  // The looked-up name is lower-cased, the configured one compared as given (as Postal does).
  if (cnames.length === 1 && cnames[0] === expected.returnPathDomain) return ok;
  return invalid(dnsCheckTexts.returnPathWrong(host, cnames[0], expected.returnPathDomain));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
