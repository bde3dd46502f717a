import type { Emulator } from "../emulator";
import { nodeDnsQuery } from "../provider/dns/dns-query";
import {
  judgeMessage,
  type ArrivingMessage,
  type MessageJudgement,
} from "../provider/receivers/judge-message";
import { receiverResolver } from "../provider/receivers/receiver-dns";

export type { ArrivingMessage, MessageJudgement } from "../provider/receivers/judge-message";
export type { DkimResult, DkimVerification } from "../provider/receivers/dkim-message";
export type { DmarcOutcome, DmarcPolicyName } from "../provider/receivers/dmarc-evaluation";
export type { SpfCheck, SpfResult } from "../provider/receivers/spf-check-host";

/** How long one of the judgement's DNS queries to the emulator may take (loopback; a busy machine). */
const QUERY_TIMEOUT_MS = 10_000;

/**
 * What receivers decide for a message the emulator sent (one of `emulator.emailApi.messages()`,
 * which the emulator signs as the service does and records with its envelope): SPF for its
 * envelope sender from its client address, each DKIM signature, and DMARC for its From domain,
 * every name looked up in the emulator's DNS. The package's own model of receivers (the one
 * `pulumi up`'s verification judges a domain with); real receivers agree with it on the postures
 * this package's suite tries.
 *
 * @example
 * const [sent] = emulator.emailApi.messages();
 * const verdict = await judgeSentMessage(emulator, sent);
 * expect(verdict.dmarc.result).toBe("pass");
 */
export function judgeSentMessage(emulator: Emulator, message: ArrivingMessage): Promise<MessageJudgement> {
  const query = nodeDnsQuery(QUERY_TIMEOUT_MS);
  return judgeMessage(
    message,
    receiverResolver(query, () => [emulator.dns.address]),
  );
}
