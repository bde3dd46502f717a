/**
 * What an SPF evaluation (spf-evaluate.ts) finds: RFC 7208's limits, the permerrors it names, the
 * lookups each term costs, and what it could not look up.
 */

/** Receivers return permerror past this many DNS-querying terms in one evaluation (RFC 7208 §4.6.4). */
export const SPF_LOOKUP_LIMIT = 10;
/** …past this many terms whose lookups find nothing (NXDOMAIN or no records; §4.6.4, a SHOULD). */
export const SPF_VOID_LOOKUP_LIMIT = 2;
/**
 * …and past this many MX names behind one `mx` (§4.6.4, a MUST). The PTR names of `ptr` have a
 * limit of 10 too, but §4.6.4 says to ignore those past it, not to return permerror; they are the
 * client's reverse DNS, not known before a message, so `ptr` counts its lookup and is warned of.
 */
export const SPF_MX_NAME_LIMIT = 10;

/** Receivers evaluate for IPv4 clients with A queries, for IPv6 clients with AAAA (§5.3, §5.4). */
export type SpfFamily = "ipv4" | "ipv6";

/** The permerrors an evaluation can meet; each names a rule of RFC 7208. */
export type SpfErrorKind =
  | "syntax"
  | "lookup-limit"
  | "void-limit"
  | "mx-limit"
  | "include-none"
  | "redirect-none"
  | "multiple-records"
  | "loop";

/** Where and why receivers stop with permerror. */
export interface SpfError {
  kind: SpfErrorKind;
  /** The term as written. */
  term: string;
  /** Why, with the RFC section. */
  rule: string;
  /** The include/redirect terms that lead to the record holding `term`; empty for the record checked. */
  via: string[];
}

/** One DNS-querying term and what it costs, with the terms it leads to (`include:`, `redirect=`). */
export interface SpfLookupNode {
  /** The term as written. */
  term: string;
  /** The name an `include`/`redirect` leads to, expanded. */
  domain?: string;
  /** Lookups of this term and everything under it. */
  lookups: number;
  /** The terms of the record it leads to, when it was evaluated. */
  children?: SpfLookupNode[];
  /** Why the record it leads to was not evaluated (then `lookups` counts the term alone). */
  unresolved?: string;
}

/** A term the evaluation could not look up or follow. */
export interface SpfUnresolved {
  term: string;
  via: string[];
  reason: string;
  /** A DNS failure (receivers return temperror) rather than a name that depends on the message. */
  temperror: boolean;
  /** Its lookup may find nothing, and so count toward the void limit. */
  mayBeVoid: boolean;
  /** An include or redirect whose record was not evaluated: the count is a lower bound. */
  notFollowed: boolean;
}

/** One evaluation, for one address family. */
export interface SpfEvaluation {
  family: SpfFamily;
  /** The first permerror, where receivers stop. */
  error?: SpfError;
  /** DNS-querying terms (past the limit, the rest of each record counts 1 a term, unfollowed). */
  lookups: number;
  /** The terms whose lookups found nothing (RFC 7208 counts terms, §4.6.4). */
  voids: string[];
  /** Lookups that found nothing, counted as pyspf counts them: each query (an `mx` makes several). */
  voidQueries: number;
  /** Includes and redirects counted but not followed, because the lookup limit was already passed. */
  unfollowed: number;
  unresolved: SpfUnresolved[];
  /** Ignored by RFC 7208 but counted (`redirect=` beside `all`) or ignored by pyspf (not lowercase). */
  pyspf: { countedRedirects: string[]; ignoredRedirects: string[] };
  terms: SpfLookupNode[];
}
