import { randomBytes } from "node:crypto";

/**
 * The message `send/message` makes, as Postal builds it (app/models/outgoing_message_prototype.rb,
 * `raw_message`, with Ruby's Mail gem): the header fields in the Mail gem's order (Date, From,
 * Sender, Reply-To, To, Cc, Message-ID, Subject, Mime-Version, Content-Type,
 * Content-Transfer-Encoding, then the custom headers); a multipart/mixed body holding a
 * multipart/alternative part with the plain and HTML bodies, then the attachments (the layout of
 * postalserver/postal#376); CRLF line endings. Postal's own Received field (`by <web hostname>
 * with HTTP`) is left out: it names the API client's address, which a receiver never judges.
 * What no source pins down (boundaries, folding, transfer encodings) is a plain RFC 5322 / RFC
 * 2045 rendering: 7bit for short ASCII lines, base64 otherwise, RFC 2047 words for non-ASCII
 * header text. User text never makes a line of its own: line breaks in header values become
 * spaces, and a custom header named as one of the fields above (or one Postal adds when sending)
 * is dropped, so a custom header cannot forge the fields DKIM signs.
 */

const CRLF = "\r\n";

/** What the message is made of, as `send/message` took it. */
export interface MessageParts {
  /** The From address, as sent (`Name <address>` or a bare address). */
  from: string;
  /** The Sender address; null (or blank): none. */
  sender: string | null;
  /** The Reply-To address; null (or blank): none. */
  replyTo: string | null;
  /** The To addresses. */
  to: string[];
  /** The Cc addresses (Bcc never appears in the message). */
  cc: string[];
  /** The subject; null: no Subject field. */
  subject: string | null;
  /** Custom header fields, by name. */
  headers: Record<string, string>;
  /** The plain-text body; blank: no text/plain part. */
  plainBody: string | null;
  /** The HTML body; blank: no text/html part. */
  htmlBody: string | null;
  /** The attachments, `data` base64 as the API takes it. */
  attachments: { name: string; contentType: string; data: string }[];
  /** The Message-ID, without angle brackets. */
  messageId: string;
  /** The Date field's time. */
  date: Date;
}

/** Fields the message has of its own, or Postal adds when it sends it: a custom header never replaces them. */
const OWN_FIELDS = new Set([
  ...["date", "from", "sender", "reply-to", "to", "cc", "bcc", "message-id", "subject"],
  ...["mime-version", "content-type", "content-transfer-encoding", "received", "return-path"],
  ...["dkim-signature", "x-postal-msgid", "resent-sender"],
]);
/** RFC 5322 §2.2's field name: printable ASCII but the colon. */
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
const PRINTABLE = /^[\t\x20-\x7e]*$/;

/** The RFC 5322 message (CRLF line endings). */
export function composeMessage(parts: MessageParts): string {
  const mixed = boundary();
  const alternative = boundary();
  const custom = Object.entries(parts.headers).filter(
    ([name]) => FIELD_NAME.test(name) && !OWN_FIELDS.has(name.toLowerCase()),
  );
  const fields: [string, string | null][] = [
    ["Date", parts.date.toUTCString().replace(/GMT$/, "+0000")],
    ["From", addresses([parts.from])],
    ["Sender", isBlank(parts.sender) ? null : addresses([parts.sender!])],
    ["Reply-To", isBlank(parts.replyTo) ? null : addresses([parts.replyTo!])],
    ["To", parts.to.length > 0 ? addresses(parts.to) : null],
    ["Cc", parts.cc.length > 0 ? addresses(parts.cc) : null],
    ["Message-ID", `<${oneLine(parts.messageId)}>`],
    ["Subject", parts.subject === null ? null : encodeWords(oneLine(parts.subject))],
    ["Mime-Version", "1.0"],
    ["Content-Type", `multipart/mixed; boundary="${mixed}"; charset=UTF-8`],
    ["Content-Transfer-Encoding", "7bit"],
    ...custom.map(([name, value]): [string, string] => [name, encodeWords(oneLine(value))]),
  ];
  const bodies = [
    ...(isBlank(parts.plainBody) ? [] : [textPart("text/plain", parts.plainBody!)]),
    ...(isBlank(parts.htmlBody) ? [] : [textPart("text/html", parts.htmlBody!)]),
  ];
  const attachments = parts.attachments.map((attachment) => {
    const name = `"${encodeWords(oneLine(attachment.name)).replace(/[\\"]/g, "\\$&")}"`;
    return [
      `Content-Type: ${oneLine(attachment.contentType)}; name=${name}`,
      "Content-Transfer-Encoding: base64",
      `Content-Disposition: attachment; filename=${name}`,
      "",
      base64Lines(Buffer.from(attachment.data, "base64")),
    ].join(CRLF);
  });
  const alternativePart = [
    `Content-Type: multipart/alternative; boundary="${alternative}"; charset=UTF-8`,
    "Content-Transfer-Encoding: 7bit",
    "",
    multipart(alternative, bodies),
  ].join(CRLF);
  const head = fields
    .filter((field): field is [string, string] => field[1] !== null)
    .map(([name, value]) => fold(`${name}: ${value}`));
  return [...head, "", multipart(mixed, [alternativePart, ...attachments])].join(CRLF);
}

/** MIME parts between delimiter lines (RFC 2046 §5.1.1), ending with the close delimiter and a CRLF. */
function multipart(boundary: string, parts: string[]): string {
  return [...parts.map((part) => `--${boundary}${CRLF}${part}`), `--${boundary}--${CRLF}`].join(CRLF);
}

/** A boundary in the Mail gem's style, which no base64 or 7bit text line can hold by chance. */
function boundary(): string {
  return `--==_mimepart_${randomBytes(12).toString("hex")}`;
}

function textPart(type: string, text: string): string {
  const lines = text.replace(/\r?\n/g, CRLF).split(CRLF);
  // RFC 5322 §2.1.1 / RFC 2045 §2.7: 7bit is ASCII, no NUL or bare CR, lines of 998 at most.
  // eslint-disable-next-line no-control-regex -- control characters are what 7bit allows or not
  const sevenBit = lines.every((line) => /^[\x01-\x0c\x0e-\x7f]*$/.test(line) && line.length <= 998);
  return [
    `Content-Type: ${type}; charset=UTF-8`,
    `Content-Transfer-Encoding: ${sevenBit ? "7bit" : "base64"}`,
    "",
    sevenBit ? lines.join(CRLF) : base64Lines(Buffer.from(text, "utf8")),
  ].join(CRLF);
}

function base64Lines(data: Buffer): string {
  return (data.toString("base64").match(/.{1,76}/g) ?? [""]).join(CRLF);
}

/** Addresses as sent, a non-ASCII display name as RFC 2047 words. */
function addresses(list: string[]): string {
  return list
    .map((address) => {
      const match = /^\s*(.*?)\s*<([^<>]*)>\s*$/.exec(oneLine(address));
      if (!match || PRINTABLE.test(match[1])) return oneLine(address).trim();
      return `${encodeWords(match[1].replace(/^"|"$/g, ""))} <${match[2]}>`;
    })
    .join(", ");
}

/** Text as is when printable ASCII, else RFC 2047 "B" words of 45 bytes at most (75 characters each). */
function encodeWords(text: string): string {
  if (PRINTABLE.test(text)) return text;
  const words = [""];
  for (const char of text) {
    if (Buffer.byteLength(words[words.length - 1] + char) > 45) words.push("");
    words[words.length - 1] += char;
  }
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word, "utf8").toString("base64")}?=`).join(" ");
}

/** A field folded at spaces into lines of 78 characters where it can be (RFC 5322 §2.1.1). */
function fold(field: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of field.split(" ")) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length > 78 && line.trim() !== "") {
      lines.push(line);
      line = ` ${word}`;
    } else line += ` ${word}`;
  }
  return [...lines, line].join(CRLF);
}

function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, " ");
}

function isBlank(value: string | null): boolean {
  return value === null || value.trim() === "";
}
