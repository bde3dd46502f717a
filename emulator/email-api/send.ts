import { randomUUID } from "node:crypto";
import { DomainRecord, MessageRecord, ServerRecord } from "../store/state";
import { Store } from "../store/store";
import { ActionResult, ServerActionRequest } from "./context";
import { ApiError } from "./errors";
import { SendErrorCode, sendTexts } from "./messages";
import { composeMessage } from "./mime";
import { outgoing } from "./outgoing";
import { Params, param } from "./params";
import { alphabets, randomString } from "./random";
import { sameText } from "./validation";

/**
 * `send/message`, Postal's legacy send (SendController#message + OutgoingMessagePrototype).
 * Nothing is delivered: the emulator accepts and records each message as Postal would send it
 * (mime.ts builds it, outgoing.ts signs it and makes its envelope).
 *
 * Stored shape: one `MessageRecord` per recipient (To, then CC, then BCC), all sharing one
 * `messageId` (`<uuid>@<return path domain>`, as Postal makes it). Per record:
 * - `rcptTo`: that recipient's bare address ("Name <a@b>" → "a@b");
 * - `from`, `sender`, `replyTo`, `subject`, `tag`, `plainBody`, `htmlBody`: as sent (strings or null;
 *   other JSON types count as not given);
 * - `to`, `cc`, `bcc`: the full lists as sent (a string is split at commas, as Postal does);
 * - `headers`: the custom `headers` object, values turned into strings;
 * - `attachments`: `{ name, contentType, size }` with `size` the decoded byte count (the data
 *   itself is kept in `raw` only);
 * - `raw`, `mailFrom`, `clientIp`, `helo`: the message as sent and its SMTP envelope (outgoing.ts).
 * Postal's data is `{ message_id, messages: { <rcpt>: { id, token } } }`; a repeated recipient
 * gets its own record, and the last one wins in `messages`.
 */

/** The maximum number of addresses per header. */
const MAX_ADDRESSES = 50;

interface Attachment {
  name: string | null;
  contentType: string;
  data: string | null;
}

export function sendMessage(request: ServerActionRequest): ActionResult {
  const { store, server, params, dns } = request;
  const to = addressList(param(params, "to"));
  const cc = addressList(param(params, "cc"));
  const bcc = addressList(param(params, "bcc"));
  const from = text(params, "from");
  const plainBody = text(params, "plain_body");
  const htmlBody = text(params, "html_body");
  const attachments = attachmentList(param(params, "attachments"));
  const attachmentFailure = firstAttachmentFailure(attachments);
  const domain = authenticatedDomain(store, server, from);

  // Postal validates everything but reports only the first failure, in this order.
  const failure = (
    [
      ["NoRecipients", to.length + cc.length + bcc.length === 0],
      ["TooManyToAddresses", to.length > MAX_ADDRESSES],
      ["TooManyCCAddresses", cc.length > MAX_ADDRESSES],
      ["TooManyBCCAddresses", bcc.length > MAX_ADDRESSES],
      ["NoContent", isBlank(plainBody) && isBlank(htmlBody)],
      ["FromAddressMissing", isBlank(from)],
      ["UnauthenticatedFromAddress", !domain],
      ["AttachmentMissingName", attachmentFailure === "AttachmentMissingName"],
      ["AttachmentMissingData", attachmentFailure === "AttachmentMissingData"],
    ] satisfies [SendErrorCode, boolean][]
  ).find(([, failed]) => failed);
  if (failure) throw new ApiError(failure[0], { message: sendTexts[failure[0]] });
  if (!domain) throw new Error("unreachable: a message without its domain passed the checks");

  const messageId = `${randomUUID()}@${dns.returnPathDomain}`;
  const now = new Date();
  const shared = {
    messageId,
    serverId: server.id,
    from: from ?? "",
    sender: text(params, "sender"),
    to,
    cc,
    bcc,
    replyTo: text(params, "reply_to"),
    subject: text(params, "subject"),
    tag: text(params, "tag"),
    plainBody,
    htmlBody,
    headers: customHeaders(param(params, "headers")),
    attachments: attachments.map((a) => ({
      name: a.name ?? "",
      contentType: a.contentType,
      size: Buffer.from(a.data ?? "", "base64").length,
    })),
    createdAt: now.toISOString(),
  };
  const composed = composeMessage({
    ...shared,
    attachments: attachments.map((a) => ({
      name: a.name ?? "",
      contentType: a.contentType,
      data: a.data ?? "",
    })),
    date: now,
  });
  const { raw, ...envelope } = outgoing(request, server, domain, composed, now);
  // A Map, so an address such as `__proto__` cannot reach Object.prototype.
  const messages = new Map<string, { id: number; token: string }>();
  let firstId: number | undefined;
  for (const address of [...to, ...cc, ...bcc]) {
    const token = randomString(alphabets.alphanumeric, 12);
    const record: MessageRecord = {
      ...shared,
      id: store.nextId("message"),
      token,
      rcptTo: stripName(address),
      raw: raw(token),
      ...envelope,
    };
    store.state.messages.push(record);
    messages.set(record.rcptTo, { id: record.id, token: record.token });
    firstId ??= record.id;
  }
  store.changed();
  return {
    data: { message_id: messageId, messages: Object.fromEntries(messages) },
    effect: { created: { kind: "message", id: firstId ?? 0, name: messageId } },
  };
}

function text(params: Params, name: string): string | null {
  const value = param(params, name);
  return typeof value === "string" ? value : null;
}

function isBlank(value: string | null): boolean {
  return value === null || value.trim() === "";
}

/** A string is split at commas (Ruby's `split` drops trailing empty parts); an array is taken as is. */
function addressList(value: unknown): string[] {
  if (typeof value === "string") {
    const parts = value.split(/,\s*/);
    while (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
    return parts;
  }
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  return [];
}

/** `Postal::Helpers.strip_name_from_address`: "Jo <jo@example.com>" → "jo@example.com". */
function stripName(address: string): string {
  return address.replace(/.*</g, "").replace(/>.*/g, "").trim();
}

/** `Server#authenticated_domain_for_address`: the From's domain must be one of the server's. */
function authenticatedDomain(
  store: Store,
  server: ServerRecord,
  from: string | null,
): DomainRecord | undefined {
  if (isBlank(from)) return undefined;
  const address = stripName(from ?? "");
  const at = address.indexOf("@");
  if (at < 0) return undefined;
  const domainName = address.slice(at + 1);
  return store.state.domains.find(
    (domain) => domain.serverId === server.id && sameText(domain.name, domainName),
  );
}

/** Entries that are not objects are skipped, as Postal does. */
function attachmentList(value: unknown): Attachment[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((item): item is Params => typeof item === "object" && item !== null && !Array.isArray(item))
    .map((item) => {
      const name = param(item, "name");
      const contentType = param(item, "content_type");
      const data = param(item, "data");
      return {
        name: typeof name === "string" ? name : null,
        contentType:
          typeof contentType === "string" && contentType !== "" ? contentType : "application/octet-stream",
        data: typeof data === "string" ? data : null,
      };
    });
}

/** The first attachment with a problem decides (a missing name hides missing data). */
function firstAttachmentFailure(attachments: Attachment[]): SendErrorCode | undefined {
  for (const attachment of attachments) {
    if (isBlank(attachment.name)) return "AttachmentMissingName";
    if (isBlank(attachment.data)) return "AttachmentMissingData";
  }
  return undefined;
}

/** Values become strings; `Object.fromEntries` keeps a `__proto__` name an ordinary key. */
function customHeaders(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).map(([name, content]) => [
      name,
      typeof content === "string" ? content : content === null ? "" : JSON.stringify(content),
    ]),
  );
}
