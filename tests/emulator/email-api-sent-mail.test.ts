import { MessageRecord } from "../../emulator";
import { postalSignedFields, serverToken } from "../../emulator/email-api/outgoing";
import { DkimTxtLookup, headerName, splitMessage, verifyDkim } from "../../provider/receivers/dkim-message";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { resolverAt } from "../support/dns-client";

/**
 * What `send/message` records of a message, read with `emulator.emailApi.messages()`: the message
 * as Postal would send it (signed as app/lib/dkim_header.rb signs, after Postal's Mail-gem
 * layout) and its SMTP envelope (app/senders/smtp_sender.rb), judged through the emulator's DNS.
 */

const emulator = useEmulator();

/** The TXT records at a name, through the emulator's DNS (a DKIM verifier's key lookup). */
const lookupTxt: DkimTxtLookup = async (name) => {
  try {
    return (await resolverAt(emulator().dns.address).resolveTxt(name)).map((strings) => strings.join(""));
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === "ENOTFOUND" ? "nxdomain" : code === "ENODATA" ? [] : "error";
  }
};

/** The records of one sent message, in recipient order. */
async function send(
  input: Parameters<ReturnType<typeof clientFor>["sendMessage"]>[0],
): Promise<MessageRecord[]> {
  const sent = await clientFor(emulator()).sendMessage(input);
  return emulator()
    .emailApi.messages()
    .filter((message) => message.messageId === sent.messageId);
}

const fieldsOf = (raw: string) => splitMessage(raw).fields;
const field = (raw: string, name: string) =>
  fieldsOf(raw).filter((f) => headerName(f) === name.toLowerCase());

describe("from a domain whose checks pass", () => {
  let name: string;
  let records: MessageRecord[];
  beforeAll(async () => {
    name = uniqueDomain("sent");
    await emulator().emailApi.addDomain(name, { verified: true });
    records = await send({
      from: `Zoë <hello@${name}>`,
      to: ["a@example.org"],
      cc: ["c@example.org"],
      bcc: ["hidden@example.org"],
      replyTo: "reply@example.org",
      subject: "Hello there",
      plainBody: "Plain\nbody",
      htmlBody: "<p>HTML</p>",
      headers: {
        "List-Unsubscribe": "<mailto:unsubscribe@example.org>",
        "X-Injected": "a\r\nBcc: evil@example.org",
        Subject: "a custom header never replaces the subject",
      },
      attachments: [
        { name: "a.txt", contentType: "text/plain", data: Buffer.from("attached").toString("base64") },
      ],
    });
  });

  it("is signed with the domain's key, d= the domain and s= its selector, and passes through the emulator's DNS", async () => {
    const domain = emulator().state.domains.find((d) => d.name === name)!;
    const selector = `postal-${domain.dkimIdentifierString}`;
    for (const record of records) {
      expect(record.raw).toMatch(
        new RegExp(
          `^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;\\r\\n\\td=${name.replace(/\./g, "\\.")};\\r\\n\\ts=${selector}; t=\\d+;\\r\\n`,
        ),
      );
      expect(await verifyDkim(record.raw, lookupTxt)).toEqual([
        { result: "pass", domain: name, selector, reason: `signed by ${name} (1024-bit key)` },
      ]);
    }
  });

  it("signs the fields of Postal's list that the message has, in its order (the custom List-Unsubscribe too)", () => {
    const raw = records[0].raw;
    const signed = /\th=([^;]*);/.exec(raw)![1].split(":");
    expect(signed).toEqual(postalSignedFields(raw.slice(raw.indexOf("\r\nX-Postal-MsgID") + 2)));
    expect(signed).toEqual([
      "date",
      "from",
      "reply-to",
      "to",
      "cc",
      "message-id",
      "subject",
      "mime-version",
      "content-type",
      "content-transfer-encoding",
      "list-unsubscribe",
    ]);
  });

  it("is one message per recipient, each with its token in X-Postal-MsgID, no Bcc and no Received", () => {
    expect(records.map((r) => r.rcptTo)).toEqual(["a@example.org", "c@example.org", "hidden@example.org"]);
    for (const record of records) {
      const names = fieldsOf(record.raw).map(headerName);
      expect(names.slice(0, 2)).toEqual(["dkim-signature", "x-postal-msgid"]);
      expect(field(record.raw, "X-Postal-MsgID")).toEqual([`X-Postal-MsgID: ${record.token}`]);
      expect(names).not.toContain("bcc");
      expect(names).not.toContain("received");
      expect(record.raw.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    }
  });

  it("holds the message as Postal builds it: headers, multipart/mixed around the bodies, the attachment", () => {
    const raw = records[0].raw;
    expect(field(raw, "From")).toEqual([
      `From: =?UTF-8?B?${Buffer.from("Zoë").toString("base64")}?= <hello@${name}>`,
    ]);
    expect(field(raw, "To")).toEqual(["To: a@example.org"]);
    expect(field(raw, "Cc")).toEqual(["Cc: c@example.org"]);
    expect(field(raw, "Reply-To")).toEqual(["Reply-To: reply@example.org"]);
    expect(field(raw, "Subject")).toEqual(["Subject: Hello there"]);
    expect(field(raw, "Message-ID")).toEqual([`Message-ID: <${records[0].messageId}>`]);
    expect(field(raw, "Mime-Version")).toEqual(["Mime-Version: 1.0"]);
    expect(field(raw, "Date")[0]).toMatch(/^Date: \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
    expect(field(raw, "Content-Type")[0]).toMatch(
      /^Content-Type: multipart\/mixed;\s+boundary="[^"]+"; charset=UTF-8$/,
    );
    // A line break in a custom value is a space: it cannot add a field.
    expect(field(raw, "X-Injected")).toEqual(["X-Injected: a Bcc: evil@example.org"]);
    const body = splitMessage(raw).body;
    expect(body).toContain("Content-Type: multipart/alternative;");
    expect(body).toContain(
      "Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nPlain\r\nbody\r\n",
    );
    expect(body).toContain(
      "Content-Type: text/html; charset=UTF-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\n<p>HTML</p>\r\n",
    );
    expect(body).toContain(
      `Content-Disposition: attachment; filename="a.txt"\r\n\r\n${Buffer.from("attached").toString("base64")}\r\n`,
    );
  });

  it("fails DKIM once its body or a signed field is changed", async () => {
    const raw = records[0].raw;
    expect(await verifyDkim(raw.replace("Plain\r\nbody", "Plain\r\nforged"), lookupTxt)).toMatchObject([
      { result: "fail", reason: "the body hash did not verify (bh=)" },
    ]);
    expect(await verifyDkim(raw.replace("Subject: Hello there", "Subject: Forged"), lookupTxt)).toMatchObject(
      [{ result: "fail", reason: "the signature did not verify (b=)" }],
    );
  });

  it("goes out from the domain's return path, HELO the first MX host, from its address", () => {
    const server = emulator().state.servers[0];
    for (const record of records)
      expect(record).toMatchObject({
        mailFrom: `${serverToken(server)}@psrp.${name}`,
        helo: "mx1.postal.example.com",
        clientIp: "192.0.2.10",
      });
    expect(serverToken(server)).toMatch(/^[a-z0-9]{6}$/);
  });
});

describe("from a domain whose checks have not run", () => {
  it("is signed with the installation's key as the return-path domain, and sent from it (Postal's fallback)", async () => {
    const name = uniqueDomain("unchecked");
    await emulator().emailApi.addDomain(name);
    const [record] = await send({ from: `hello@${name}`, to: ["a@example.org"], plainBody: "hi" });
    expect(await verifyDkim(record.raw, lookupTxt)).toEqual([
      {
        result: "pass",
        domain: "rp.postal.example.com",
        selector: "postal",
        reason: "signed by rp.postal.example.com (1024-bit key)",
      },
    ]);
    expect(record.mailFrom).toBe(`${serverToken(emulator().state.servers[0])}@rp.postal.example.com`);
    // Without a subject, reply-to or HTML: no such field, and no HTML part.
    expect(fieldsOf(record.raw).map(headerName)).not.toContain("subject");
    expect(record.raw).not.toContain("text/html");
  });
});

describe("emulator.emailApi.messages()", () => {
  it("gives copies, oldest first", async () => {
    const name = uniqueDomain("copies");
    await emulator().emailApi.addDomain(name);
    await send({ from: `hello@${name}`, to: ["first@example.org", "second@example.org"], plainBody: "hi" });
    const mine = emulator()
      .emailApi.messages()
      .filter((m) => m.from === `hello@${name}`);
    expect(mine.map((m) => m.rcptTo)).toEqual(["first@example.org", "second@example.org"]);
    mine[0].raw = "changed";
    expect(
      emulator()
        .emailApi.messages()
        .find((m) => m.id === mine[0].id)!.raw,
    ).not.toBe("changed");
  });
});
