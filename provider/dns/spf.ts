/**
 * SPF (RFC 7208) for a zone that already has an SPF record at the domain's name. A name may carry
 * only one SPF record (§3.2; two make receivers return permerror, §4.5), so the service's
 * `include:` is merged into the user's record instead of publishing a second one, and taken out
 * again on destroy. Everything here works on unquoted TXT content (`v=spf1 ~all`, the strings of
 * one record joined, §3.3); Cloudflare's quoted form is `quoteTxt`/`unquoteTxt`.
 *
 * Edits touch only what they add or remove: the user's terms keep their exact spelling, order and
 * spacing, so a merge followed by a removal gives back the user's record byte for byte.
 */

import {
  isInclude,
  isSpfRecord,
  parseOrThrow,
  reachesAll,
  sameDomain,
  SpfMechanism,
  SpfTermText,
} from "./spf-record";

/**
 * The domains of the service's `include:` mechanisms that authorize (qualifier `+` or none): what
 * goes into a user's existing record. Postal: "if an SPF record already exists, only the include
 * part needs adding"; its `a` and `mx` describe the service's own domain, not the user's.
 */
export function serviceSpfIncludes(serviceRecordText: string): string[] {
  const includes: string[] = [];
  for (const term of parseOrThrow(serviceRecordText, "serviceSpfIncludes").terms) {
    if (!isInclude(term) || (term.qualifier !== "" && term.qualifier !== "+")) continue;
    if (term.value && !includes.some((domain) => sameDomain(domain, term.value!))) includes.push(term.value);
  }
  return includes;
}

/**
 * The includes a merge would add: those the record has no `include:` of (any qualifier, any
 * position, domains compared without case or final dot), each once. What the component records in
 * state, so that destroy removes only what it added.
 */
export function missingSpfIncludes(record: string, includes: readonly string[]): string[] {
  const terms = parseOrThrow(record, "missingSpfIncludes").terms;
  const missing: string[] = [];
  for (const domain of includes) {
    checkIncludeDomain(domain, "missingSpfIncludes");
    const present = terms.some(
      (term) => isInclude(term) && term.value !== undefined && sameDomain(term.value, domain),
    );
    if (!present && !missing.some((other) => sameDomain(other, domain))) missing.push(domain);
  }
  return missing;
}

function checkIncludeDomain(domain: string, caller: string): void {
  if (!/^[^\s:=]+$/.test(domain))
    throw new Error(
      `${caller}: an include is a domain name, without "include:" or spaces: ${JSON.stringify(domain)}`,
    );
}

/**
 * The user's record with `include:<domain>` added for each include it lacks (see
 * `missingSpfIncludes`); unchanged when it has them all. Added where evaluation reaches them
 * before the record's verdict: just before the first `all` (its qualifier kept; mechanisms after
 * `all` are never evaluated, RFC 7208 §5.1), or before the first term that holds one after a tab
 * or other white space (`mx<TAB>~all`, see `reachesAll`), else after the last mechanism, else before the first
 * modifier (a record of only `redirect=`: mechanisms are evaluated before a redirect is followed,
 * §6.1, so mail the include passes passes, and everything else still gets the redirect's verdict),
 * else at the end. The user's terms are never moved, respelled or respaced; the added text is
 * `include:<domain>` joined with single spaces. One exception: an include of the service's domain
 * written in other letters is respelled as the service spells it (`respellSpfIncludes`).
 *
 * An include the user wrote with another qualifier (`~include:…`) or after `all` counts as
 * present (a second copy would duplicate a mechanism and not change the verdict of the first):
 * `spfIncludeProblem` says why it does not authorize the service.
 */
export function mergeSpfIncludes(record: string, includes: readonly string[]): string {
  const existing = respellSpfIncludes(record, includes);
  const { terms } = parseOrThrow(existing, "mergeSpfIncludes");
  const added = missingSpfIncludes(existing, includes).map((domain) => `include:${domain}`);
  if (added.length === 0) return existing;

  const firstAll = terms.findIndex(reachesAll);
  let lastMechanism = -1;
  terms.forEach((term, index) => {
    if (term.kind === "mechanism") lastMechanism = index;
  });
  const before = firstAll >= 0 ? firstAll : lastMechanism >= 0 ? lastMechanism + 1 : 0;
  const next = terms[before];
  if (next) return `${existing.slice(0, next.offset)}${added.join(" ")} ${existing.slice(next.offset)}`;
  const end = terms.length > 0 ? endOf(terms[terms.length - 1]) : 6;
  return `${existing.slice(0, end)} ${added.join(" ")}${existing.slice(end)}`;
}

/**
 * The record with every `include:` of the given domains that is spelled otherwise (`INCLUDE:`, other
 * letters in the domain, a final dot) written `include:<domain>` as given, its qualifier kept, and
 * every other byte kept. Receivers compare domains without case
 * (RFC 7208 §4.3), so their verdict is the same; Postal's check matches its include with a
 * case-sensitive pattern, and fails a record that names it in capitals until someone respells it.
 */
export function respellSpfIncludes(record: string, includes: readonly string[]): string {
  const { terms } = parseOrThrow(record, "respellSpfIncludes");
  let text = record;
  // From the end, so that earlier offsets stay right.
  for (const term of [...terms].reverse()) {
    // `include: domain` is the user's syntax error, which a merge refuses (`spfIncludeProblem`).
    // A macro's letter case is its meaning (`%{D}` asks for the value URL-escaped, RFC 7208 §7.3).
    if (!isInclude(term) || term.value === undefined || /\s|%/.test(term.text)) continue;
    const value = term.value;
    const spelled = includes.find((domain) => sameDomain(domain, value));
    const colon = term.text.indexOf(":");
    // The qualifier as written, the mechanism's name in lowercase, the domain as the service spells it.
    const respelled = `${term.text.slice(0, colon).replace(/include$/i, "include")}:${spelled}`;
    if (spelled === undefined || respelled === term.text) continue;
    text = text.slice(0, term.offset) + respelled + text.slice(term.offset + term.text.length);
  }
  return text;
}

function endOf(term: SpfTermText): number {
  return term.offset + term.text.length;
}

/**
 * The inverse of `mergeSpfIncludes`, for destroy: removes every `include:` of the given domains
 * that authorizes (qualifier `+` or none, the kind a merge adds), with the spaces that joined it,
 * and leaves every other byte as it was. An include with another qualifier is the user's and
 * stays; a record without them (the user took them out) comes back unchanged. Pass the includes
 * `missingSpfIncludes` reported before the merge, so that an include the user had is kept.
 * The record is read again after each removal: a bare `include:` the user wrote before a removed
 * include joins the word after it (`include: domain`, an include as Postal's check reads it), and
 * when that names one of the domains, it goes too, so that none is left authorized.
 */
export function removeSpfIncludes(record: string, includes: readonly string[]): string {
  for (const domain of includes) checkIncludeDomain(domain, "removeSpfIncludes");
  let text = record;
  for (;;) {
    const { terms } = parseOrThrow(text, "removeSpfIncludes");
    const index = terms.findIndex(
      (term) =>
        isInclude(term) &&
        (term.qualifier === "" || term.qualifier === "+") &&
        term.value !== undefined &&
        includes.some((domain) => sameDomain(domain, term.value!)),
    );
    if (index < 0) return text;
    const term = terms[index];
    const next = terms[index + 1];
    // With a term after it, the spaces after it go (a merge inserted `include:x ` before a term);
    // as the last term, the spaces before it (a merge appended ` include:x`).
    text = next
      ? text.slice(0, term.offset) + text.slice(next.offset)
      : text.slice(0, index > 0 ? endOf(terms[index - 1]) : 6) + text.slice(endOf(term));
  }
}

/**
 * Why a record that already names the include does not authorize the service, or undefined when
 * one of its includes does (or it has none: `mergeSpfIncludes` adds it). Receivers evaluate terms
 * left to right and stop at the first match: an include with qualifier `-`, `~` or `?` gives that
 * verdict to the service's mail (RFC 7208 §4.6.2), one after `all` is never evaluated (§5.1), and
 * `include: domain` is a syntax error, permerror for every message (§4.6, §12).
 */
export function spfIncludeProblem(record: string, include: string): string | undefined {
  const { terms } = parseOrThrow(record, "spfIncludeProblem");
  const firstAll = terms.findIndex(reachesAll);
  const found = terms.flatMap((term, index) =>
    isInclude(term) && term.value !== undefined && sameDomain(term.value, include) ? [{ term, index }] : [],
  );
  const problem = ({ term, index }: { term: SpfMechanism; index: number }): string | undefined => {
    if (firstAll >= 0 && index > firstAll)
      return `${term.text} comes after ${terms[firstAll].text}, so receivers never evaluate it (RFC 7208 §5.1)`;
    if (term.text.includes(" "))
      return `"${term.text}" has a space after the colon: a syntax error, receivers return permerror (RFC 7208 §4.6, §12)`;
    if (term.qualifier !== "" && term.qualifier !== "+")
      return (
        `${term.text} has the qualifier "${term.qualifier}": the service's mail gets ` +
        `${QUALIFIER_RESULTS[term.qualifier]}, not pass (RFC 7208 §4.6.2)`
      );
    return undefined;
  };
  if (found.length === 0 || found.some((entry) => problem(entry) === undefined)) return undefined;
  return problem(found[0]);
}

const QUALIFIER_RESULTS = { "-": "fail", "~": "softfail", "?": "neutral" } as const;

/**
 * Undefined when the TXT records at one name hold at most one SPF record; else a problem naming
 * how many: with more than one, receivers return permerror for every message (RFC 7208 §3.2,
 * §4.5). Takes records as text or, as node:dns `resolveTxt` gives them, as character-strings.
 */
export function spfRecordCountProblem(
  records: readonly (string | readonly string[])[],
  name?: string,
): string | undefined {
  const count = records
    .map((record) => (typeof record === "string" ? record : record.join("")))
    .filter(isSpfRecord).length;
  if (count <= 1) return undefined;
  return (
    `${count} SPF records${name ? ` at ${name}` : ""}: a name may have only one, receivers return ` +
    `permerror (RFC 7208 §3.2, §4.5); merge them into one record`
  );
}
