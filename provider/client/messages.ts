import { z } from "zod";
import { id } from "./schemas";
import type { CreatedServer, CreateServerInput, SendMessageInput, SentMessage } from "./types";

/** `send/message`'s answer. */
export const sentMessageSchema = z
  .object({
    message_id: z.string(),
    messages: z.record(z.string(), z.object({ id, token: z.string() })).default({}),
  })
  .transform((raw): SentMessage => ({ messageId: raw.message_id, messages: raw.messages }));

/** `server/create`'s answer. */
export const createdServerSchema = z
  .object({
    id: id.optional(),
    uuid: z.string().optional(),
    name: z.string(),
    permalink: z.string().optional(),
    mode: z.string().optional(),
    api_key: z.string().optional(),
    smtp_key: z.string().optional(),
  })
  .transform((raw): CreatedServer => ({
    id: raw.id,
    uuid: raw.uuid,
    name: raw.name,
    permalink: raw.permalink,
    mode: raw.mode,
    apiKey: raw.api_key,
    smtpKey: raw.smtp_key,
  }));

/** The body of `send/message` (Postal's legacy send API), without the fields not given. */
export function encodeMessage(input: SendMessageInput): Record<string, unknown> {
  const body: Record<string, unknown> = {
    to: input.to,
    cc: input.cc,
    bcc: input.bcc,
    from: input.from,
    sender: input.sender,
    subject: input.subject,
    tag: input.tag,
    reply_to: input.replyTo,
    plain_body: input.plainBody,
    html_body: input.htmlBody,
    headers: input.headers,
    attachments: input.attachments?.map((a) => ({
      name: a.name,
      content_type: a.contentType,
      data: a.data,
    })),
  };
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

/** The body of `server/create`. */
export function encodeServer(input: CreateServerInput): Record<string, unknown> {
  return { name: input.name, mode: input.mode };
}
