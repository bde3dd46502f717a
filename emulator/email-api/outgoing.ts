import { createHash } from "node:crypto";
// The package's own DKIM signer: what the emulator signs, a receiver's check (the same module) verifies.
import { dkimSignatureField, headerName, splitMessage } from "../../provider/receivers/dkim-message";
import { MailDnsConfig } from "../config";
import { sendingHost } from "../dns/service-records";
import { DomainRecord, ServerRecord } from "../store/state";
import { Store } from "../store/store";
import { generateDkimKeySync, INSTALLATION_KEY_BITS } from "./dkim";
import { domainHosts } from "./dns-records";

/**
 * What Postal adds to a message it accepted when it sends it, for each recipient:
 * - a DKIM-Signature, first (lib/postal/message_db/message.rb, `add_outgoing_headers`, and
 *   app/lib/dkim_header.rb): with the domain's key (`d=<domain>`, `s=<dkim_identifier>-XXXXXX`)
 *   when its DKIM check is OK, else with the installation's own key (`d=<dns.return_path_domain>`,
 *   `s=<dkim_identifier>`); rsa-sha256, relaxed/relaxed, `t=` the time of sending, over the fields
 *   of DKIMHeader's fixed list that the message has, in the message's order;
 * - `X-Postal-MsgID: <message token>`, after it (the same method);
 * - the envelope sender (app/senders/smtp_sender.rb, `determine_mail_from_for_message`):
 *   `<server token>@<the domain's return path host>` when the domain's return-path check is OK,
 *   else `<server token>@<dns.return_path_domain>`;
 * - the host it leaves from: HELO name and address (dns/service-records.ts, `sendingHost`).
 * Postal signs when its dequeuer sends; the emulator signs at acceptance, the moment it records.
 */

/** DKIMHeader's list: a field the message has under one of these names is signed. */
export const POSTAL_SIGNED_FIELDS = [
  ...["from", "sender", "reply-to", "subject", "date", "message-id", "to", "cc", "mime-version"],
  ...["content-type", "content-transfer-encoding", "resent-to", "resent-cc", "resent-from"],
  ...["resent-sender", "resent-message-id", "in-reply-to", "references", "list-id", "list-help"],
  ...["list-owner", "list-unsubscribe", "list-unsubscribe-post", "list-subscribe", "list-post"],
];

/** The names Postal puts in `h=` for `message`: its fields on the list, in order, lowercase. */
export function postalSignedFields(message: string): string[] {
  return splitMessage(message)
    .fields.map(headerName)
    .filter((name) => POSTAL_SIGNED_FIELDS.includes(name));
}

/**
 * Postal's `Server#token` (six lowercase letters and digits, the local part of every envelope
 * sender). Postal draws it at random and stores it; the emulator derives it from the server's
 * uuid, so older state files need no new field.
 */
export function serverToken(server: Pick<ServerRecord, "uuid">): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const digest = createHash("sha256").update(server.uuid).digest();
  return Array.from(digest.subarray(0, 6), (byte) => alphabet[byte % alphabet.length]).join("");
}

/** How a message leaves: its raw form for a recipient's token, and its SMTP envelope. */
export interface Outgoing {
  /** The message as sent to the recipient whose stored message has this token. */
  raw(token: string): string;
  /** The SMTP `MAIL FROM`. */
  mailFrom: string;
  /** The sending host's address. */
  clientIp: string;
  /** The sending host's HELO name. */
  helo: string;
}

/** Signs `message` (from `domain`, a domain of `server`) and makes its envelope, as Postal sends it. */
export function outgoing(
  context: { store: Store; dns: MailDnsConfig },
  server: ServerRecord,
  domain: DomainRecord,
  message: string,
  sentAt: Date,
): Outgoing {
  const { store, dns } = context;
  const returnPathDomain = dns.returnPathDomain.toLowerCase().replace(/\.$/, "");
  const signer =
    domain.dkimStatus === "OK"
      ? {
          domain: domain.name,
          selector: `${dns.dkimIdentifier}-${domain.dkimIdentifierString}`,
          privateKeyPem: domain.dkimPrivateKeyPem,
        }
      : {
          domain: returnPathDomain,
          selector: dns.dkimIdentifier,
          privateKeyPem: installationKey(store),
        };
  const signature = dkimSignatureField({
    ...signer,
    message,
    headers: postalSignedFields(message),
    timestamp: Math.floor(sentAt.getTime() / 1000),
  });
  const mailFromHost =
    domain.returnPathStatus === "OK" ? domainHosts(domain, dns).returnPath : returnPathDomain;
  return {
    raw: (token) => `${signature}\r\nX-Postal-MsgID: ${token}\r\n${message}`,
    mailFrom: `${serverToken(server)}@${mailFromHost}`,
    ...sendingHost(dns),
  };
}

/** The installation's key: made at start (start.ts); made here when the store was not started so. */
function installationKey(store: Store): string {
  if (!store.state.signingKey) {
    const key = generateDkimKeySync(INSTALLATION_KEY_BITS);
    store.state.signingKey = { publicKey: key.publicKey, privateKeyPem: key.privateKeyPem };
  }
  return store.state.signingKey.privateKeyPem;
}
