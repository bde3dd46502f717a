import { isDmarcRecord } from "../dns/dmarc";
import { isSpfRecord } from "../dns/spf-record";
import { unquoteTxt } from "../dns/txt";
import { resourceRule } from "./policy-kit";
import {
  domainFacts,
  domainLabel,
  isDomainsOwnRecord,
  recordFacts,
  RECORD_TYPES,
  recordLabel,
  TYPE_TOKENS,
} from "./resources";

/** Cloudflare's "automatic" TTL (1) is 300 seconds. */
const AUTOMATIC_TTL_SECONDS = 300;

/**
 * Email records have a TTL in a sane range: long enough that resolvers do not ask for them at
 * every message, short enough that a mistake does not outlive its fix by a day. A `Domain`'s
 * records are judged through its `cloudflare.ttl`; SPF, DKIM, DMARC and MX records declared by
 * hand through their own `ttl`.
 */
export const dnsTtl = resourceRule<{ minSeconds: number; maxSeconds: number }>({
  name: "email-dns-ttl",
  description: "Email DNS records have a TTL from minSeconds to maxSeconds (1, automatic, counts as 300).",
  enforcementLevel: "advisory",
  appliesTo: [TYPE_TOKENS.Domain, ...RECORD_TYPES],
  config: {
    minSeconds: { type: "integer", minimum: 1, default: 300, description: "The shortest TTL allowed." },
    maxSeconds: { type: "integer", minimum: 1, default: 14400, description: "The longest TTL allowed." },
  },
  validate(subject, report) {
    let ttl: number | undefined;
    let label: string;
    let setting: string;
    if (subject.type === TYPE_TOKENS.Domain) {
      const domain = domainFacts(subject.name, subject.props);
      if (!domain?.cloudflare) return;
      ttl = domain.cloudflare.ttl;
      label = domainLabel(domain);
      setting = "cloudflare.ttl";
    } else {
      // A Domain's own records carry its TTL: judged once, through the Domain.
      if (isDomainsOwnRecord(subject.parent, subject.name)) return;
      const record = recordFacts(subject);
      if (!record || !isEmailRecord(record.type, record.name, record.content)) return;
      ttl = record.ttl;
      label = recordLabel(record);
      setting = "ttl";
    }
    if (ttl === undefined) return;
    const seconds = ttl === 1 ? AUTOMATIC_TTL_SECONDS : ttl;
    const { minSeconds, maxSeconds } = subject.config;
    if (seconds >= minSeconds && seconds <= maxSeconds) return;
    const why =
      seconds < minSeconds
        ? "resolvers ask for it again at nearly every message"
        : "a mistake in it stays in resolvers' caches that long after it is fixed";
    report(
      `${label} has a TTL of ${seconds}s (${setting}), outside ${minSeconds} to ${maxSeconds}s: ${why}. ` +
        `Set ${setting} within that range.`,
    );
  },
});

/** MX, and TXT records for SPF, DKIM and DMARC. */
function isEmailRecord(type: string | undefined, name: string | undefined, content: unknown): boolean {
  if (type === "MX") return true;
  if (type !== "TXT") return false;
  if (name?.includes("._domainkey.") || name?.startsWith("_dmarc.")) return true;
  if (typeof content !== "string") return false;
  const text = unquoteTxt(content);
  return isSpfRecord(text) || isDmarcRecord(text);
}
