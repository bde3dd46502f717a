import type { CheckName } from "../inputs";
import { DiagnosisFacts } from "./diagnosis-facts";
import { answerServes } from "./serves";
import type { CheckDiagnoses } from "./diagnosis-facts";

/**
 * A DNS-first wait (`WaitOptions.dnsFirst`): each poll asks DNS, which is cheap, and asks the
 * service's check, which makes the service run its own lookups, only when that can pass or when
 * DNS cannot say. Pure decisions, so the wait and its tests agree on them.
 */

/** How a DNS-first wait spaces the service's checks while DNS does not show the records. */
export interface DnsFirstOptions {
  /**
   * Ask the service at least this long after its last check (or after the wait began), whatever
   * DNS shows: a service that sees DNS differently (its own resolver, a split-horizon view) is
   * never waited on forever. `DEFAULT_SERVICE_CHECK_CAP_MS` is the package's.
   */
  serviceCheckCapMs: number;
}

/**
 * 120 s: with records that appear at any moment, the service is asked once at most while they
 * are missing (when the cap runs out, at 120 s) and once when DNS shows them, so a domain whose
 * records appear within two minutes costs at most 2 service checks (issue 26's aim); later
 * records cost one more per two minutes, against 24 a two minutes at the default 5 s pace.
 */
export const DEFAULT_SERVICE_CHECK_CAP_MS = 120_000;

/**
 * What DNS says of the failing checks, from one gather's diagnoses:
 * - `shows`: every failing check's expected record is served by every authoritative nameserver
 *   that answered, at least one answering: the service's check can pass;
 * - `not-yet`: some record is not served yet: the service's check would fail too;
 * - `cannot-tell`: the gather failed, a failing check has no expected record (nothing to look
 *   for), or no authoritative nameserver answered for some record.
 */
export type DnsVerdict = "shows" | "not-yet" | "cannot-tell";

export function dnsVerdict(
  failing: readonly CheckName[],
  gathered: { diagnoses?: CheckDiagnoses; diagnosisError?: Error },
): DnsVerdict {
  if (gathered.diagnosisError || !gathered.diagnoses) return "cannot-tell";
  let verdict: DnsVerdict = "shows";
  for (const check of failing) {
    const found = gathered.diagnoses[check];
    if (!found) return "cannot-tell";
    const shown = authoritativeShow(found.facts);
    if (shown === "no-answer") return "cannot-tell";
    if (shown === "not-all") verdict = "not-yet";
  }
  return verdict;
}

/**
 * What the authoritative nameservers show of one expected record: `all` that answered serve it
 * (at least one answering), `not-all`, or `no-answer` (none answered: every one errored or timed
 * out, or none was found). An NXDOMAIN or an empty answer is an answer.
 */
export function authoritativeShow(
  facts: Pick<DiagnosisFacts, "expected" | "authoritative">,
): "all" | "not-all" | "no-answer" {
  const answered = facts.authoritative.filter((server) => !("error" in server.answer));
  if (answered.length === 0) return "no-answer";
  const servedByAll = answered.every(({ answer }) => answerServes(facts.expected, answer));
  return servedByAll ? "all" : "not-all";
}

/** Why a DNS-first poll asks the service this time. */
export type ServiceCheckReason = "dns-shows" | "dns-cannot-tell" | "cap" | "deadline";

/**
 * Whether this poll asks the service, and why: DNS shows the records or cannot tell, the cap has
 * run out since the last service check, or this is the last poll (at the deadline), so a wait
 * that times out always ends with the service's own statuses. Undefined: skip the service.
 */
export function serviceCheckReason(poll: {
  verdict: DnsVerdict;
  sinceServiceCheckMs: number;
  capMs: number;
  atDeadline: boolean;
}): ServiceCheckReason | undefined {
  if (poll.verdict === "shows") return "dns-shows";
  if (poll.verdict === "cannot-tell") return "dns-cannot-tell";
  if (poll.atDeadline) return "deadline";
  if (poll.sinceServiceCheckMs >= poll.capMs) return "cap";
  return undefined;
}
