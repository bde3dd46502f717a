import { dmarcRestsOnDkimAlone } from "../inputs/dmarc-alignment";
import { unquoteTxt } from "../dns/txt";
import { DKIM_MIN_RSA_BITS, readDkimKey } from "../receivers/dkim-key";
import { resourceRule } from "./policy-kit";
import { knownObject, knownString, UNKNOWN } from "./props";
import {
  domainFacts,
  domainLabel,
  ownRecordPurpose,
  recordFacts,
  RECORD_TYPES,
  recordLabel,
  TYPE_TOKENS,
} from "./resources";

/**
 * DKIM as verifiers read it (RFC 6376, with the receivers' model `receivers/dkim-key.ts`), and
 * DMARC alignment (RFC 7489 §3.1): a DKIM key record declared by hand that verifiers can use, and
 * a `Domain` whose DMARC does not rest on a DKIM that nothing verifies.
 */

/** `<selector>._domainkey.<domain>`: where a DKIM key record is published (RFC 6376 §3.6.2.1). */
const DKIM_NAME = /^[^.]+(\.[^.]+)*\._domainkey\.[^.]+/;

/**
 * `email-dkim-key` (advisory; mandatory in production stacks): a DKIM key record declared by hand
 * (a TXT record at `<selector>._domainkey.<domain>`) holds a key verifiers use: not revoked (empty
 * `p=`), not in testing mode (`t=y`), an RSA key of at least 1024 bits (RFC 8301 §3.2), and a
 * record that reads. A `Domain`'s own DKIM record is the service's, checked by its verification.
 */
export const dkimKey = resourceRule({
  name: "email-dkim-key",
  description:
    "A DKIM key record declared by hand holds a key verifiers use: not revoked, not testing, 1024 bits or more.",
  enforcementLevel: "advisory",
  appliesTo: RECORD_TYPES,
  validate(subject, report) {
    // A Domain's own records are known by their names, before their properties are read.
    const own = ownRecordPurpose(subject.parent, subject.name);
    if (own === "dkim")
      subject.notApplicable("the Domain's own DKIM record is the service's, checked by its verification");
    if (own) return;
    const record = recordFacts(subject);
    if (!record || record.type !== "TXT" || !record.name || !DKIM_NAME.test(record.name)) return;
    if (record.content === UNKNOWN) {
      subject.notApplicable(
        "the DKIM record's content is not known until `pulumi up` (another resource's output): its key is judged then, before it is written",
      );
    }
    const key = readDkimKey(unquoteTxt(typeof record.content === "string" ? record.content : ""));
    const label = recordLabel(record);
    if (key.problem?.kind === "revoked") {
      report(
        `${label} revokes its key (p= is empty): verifiers fail every signature made with this selector (RFC 6376 §3.6.1). ` +
          "Publish the key the signer uses, or remove the record once nothing signs with the selector.",
      );
    } else if (key.problem?.kind === "short") {
      report(
        `${label} holds a ${key.bits}-bit RSA key: verifiers refuse keys under ${DKIM_MIN_RSA_BITS} bits (RFC 8301 §3.2), so ` +
          "every signature made with it fails. Publish a key of 2048 bits.",
      );
    } else if (key.problem) {
      report(
        `${label} holds no key verifiers can use: ${key.problem.text}. Publish the signer's key record exactly.`,
      );
    }
    if (key.testing) {
      report(
        `${label} says t=y (testing): verifiers treat mail signed with it as unsigned (RFC 6376 §3.6.1), so DMARC cannot ` +
          "pass by DKIM. Remove t=y from the record.",
      );
    }
  },
});

/**
 * `email-dmarc-alignment` (advisory; mandatory in production stacks): a `Domain` whose DMARC asks
 * for strict SPF alignment (`spfAlignment: "strict"`, `aspf=s`), which the service's return path
 * `psrp.<name>` never meets, rests on DKIM alone: its verification must wait for DKIM. The same
 * judgement as the `Domain`'s warning at preview (`inputs/dmarc-alignment.ts`).
 */
export const dmarcAlignment = resourceRule({
  name: "email-dmarc-alignment",
  description: "A Domain whose DMARC passes by DKIM alone (strict SPF alignment) waits for its DKIM check.",
  enforcementLevel: "advisory",
  appliesTo: [TYPE_TOKENS.Domain],
  validate(subject, report) {
    const domain = domainFacts(subject.name, subject.props);
    if (!domain) return;
    if (domain.dmarc === UNKNOWN)
      subject.notApplicable("the Domain's dmarc settings are not known until `pulumi up`");
    const alone = dmarcRestsOnDkimAlone(knownObject(domain.dmarc), domain.verification);
    if (alone === "unknown") {
      subject.notApplicable("verification.checks is not known until `pulumi up`: the wait judges it then");
    }
    if (alone === undefined) return;
    const policy = knownString(knownObject(domain.dmarc)?.policy) ?? "?";
    report(
      `${domainLabel(domain)} asks for strict SPF alignment (dmarc.spfAlignment: "strict", aspf=s), which the service's ` +
        `return path (psrp.${domain.name ?? "<name>"}) never meets (RFC 7489 §3.1.2): its mail passes DMARC p=${policy} ` +
        `by DKIM alone, and ${alone}, so nothing checks DKIM before mail is sent. Add "dkim" to verification.checks ` +
        '(or leave checks out), or set dmarc.spfAlignment to "relaxed".',
    );
  },
});
