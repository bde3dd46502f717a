import { seedServer } from "../../emulator/email-api";
import {
  api,
  failure,
  type Json,
  log,
  mainEndpoints,
  MASTER_KEY,
  newDomain,
  newServer,
  parameterError,
  store,
  success,
  useEmailApiService,
} from "../support/email-api-service";

/** The email API emulator: send/message, server/create and the seeded server. */

useEmailApiService();

describe("send/message", () => {
  let domain: Json;
  beforeAll(async () => {
    domain = await newDomain();
  });

  const sendError = async (params: object, code: string, message: string) =>
    expect(await api("send/message", params)).toEqual(failure({ message, code }));

  test("accepts, stores one message per recipient and answers {message_id, messages}", async () => {
    log.clear();
    const before = store.state.messages.length;
    const answer = await api("send/message", {
      to: "a@example.net, B <b@example.net>",
      cc: ["c@example.net"],
      bcc: ["d@example.net"],
      from: `Sender <hello@${domain.name.toUpperCase()}>`,
      subject: "Hi",
      tag: "welcome",
      reply_to: "reply@example.net",
      plain_body: "plain",
      html_body: "<p>html</p>",
      headers: { "X-Thing": "1", "X-Num": 2 },
      attachments: [
        { name: "a.txt", content_type: "text/plain", data: Buffer.from("hello").toString("base64") },
      ],
    });
    expect(answer).toEqual(
      success({
        message_id: expect.stringMatching(/^[0-9a-f-]{36}@rp\.postal\.example\.com$/),
        messages: {
          "a@example.net": { id: expect.any(Number), token: expect.stringMatching(/^[A-Za-z0-9]{12}$/) },
          "b@example.net": { id: expect.any(Number), token: expect.any(String) },
          "c@example.net": { id: expect.any(Number), token: expect.any(String) },
          "d@example.net": { id: expect.any(Number), token: expect.any(String) },
        },
      }),
    );
    const stored = store.state.messages.slice(before);
    expect(stored.map((m) => m.rcptTo)).toEqual([
      "a@example.net",
      "b@example.net",
      "c@example.net",
      "d@example.net",
    ]);
    expect(stored[1]).toEqual({
      id: answer.data.messages["b@example.net"].id,
      token: answer.data.messages["b@example.net"].token,
      messageId: answer.data.message_id,
      serverId: expect.any(Number),
      rcptTo: "b@example.net",
      from: `Sender <hello@${domain.name.toUpperCase()}>`,
      sender: null,
      to: ["a@example.net", "B <b@example.net>"],
      cc: ["c@example.net"],
      bcc: ["d@example.net"],
      replyTo: "reply@example.net",
      subject: "Hi",
      tag: "welcome",
      plainBody: "plain",
      htmlBody: "<p>html</p>",
      headers: { "X-Thing": "1", "X-Num": "2" },
      attachments: [{ name: "a.txt", contentType: "text/plain", size: 5 }],
      createdAt: expect.any(String),
      // As sent (tests/emulator/email-api-sent-mail.test.ts): signed, from the installation's host.
      raw: expect.stringMatching(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed;\r\n/),
      mailFrom: expect.stringMatching(/^[a-z0-9]{6}@rp\.postal\.example\.com$/),
      clientIp: "192.0.2.10",
      helo: "mx1.postal.example.com",
    });
    expect(log.all()[0].effect).toEqual({
      created: { kind: "message", id: stored[0].id, name: answer.data.message_id },
    });
  });

  test("each error, with Postal's code and message", async () => {
    const ok = { to: ["a@example.net"], from: `x@${domain.name}`, plain_body: "hi" };
    const many = Array.from({ length: 51 }, (_, i) => `r${i}@example.net`);
    await sendError(
      { ...ok, to: [] },
      "NoRecipients",
      "There are no recipients defined to receive this message",
    );
    await sendError(
      { ...ok, to: "" },
      "NoRecipients",
      "There are no recipients defined to receive this message",
    );
    await sendError(
      { ...ok, to: many },
      "TooManyToAddresses",
      "The maximum number of To addresses has been reached (maximum 50)",
    );
    await sendError(
      { ...ok, cc: many },
      "TooManyCCAddresses",
      "The maximum number of CC addresses has been reached (maximum 50)",
    );
    await sendError(
      { ...ok, bcc: many.join(",") },
      "TooManyBCCAddresses",
      "The maximum number of BCC addresses has been reached (maximum 50)",
    );
    await sendError({ ...ok, plain_body: " " }, "NoContent", "There is no content defined for this e-mail");
    await sendError(
      { ...ok, from: undefined },
      "FromAddressMissing",
      "The From address is missing and is required",
    );
    await sendError(
      { ...ok, from: "x@elsewhere.example" },
      "UnauthenticatedFromAddress",
      "The From address is not authorised to send mail from this server",
    );
    await sendError(
      { ...ok, from: "no-at-sign" },
      "UnauthenticatedFromAddress",
      "The From address is not authorised to send mail from this server",
    );
    await sendError(
      { ...ok, attachments: [{ data: "aGk=" }] },
      "AttachmentMissingName",
      "An attachment is missing a name",
    );
    await sendError(
      { ...ok, attachments: [{ name: "a.txt", data: "" }] },
      "AttachmentMissingData",
      "An attachment is missing data",
    );
  });

  test("only the first error is reported, in Postal's order", async () => {
    await sendError({}, "NoRecipients", "There are no recipients defined to receive this message");
    await sendError({ to: ["a@example.net"] }, "NoContent", "There is no content defined for this e-mail");
    await sendError(
      { to: ["a@example.net"], html_body: "x", attachments: [{ name: "a", data: "" }, { data: "x" }] },
      "FromAddressMissing",
      "The From address is missing and is required",
    );
    await sendError(
      {
        to: ["a@example.net"],
        html_body: "x",
        from: `a@${domain.name}`,
        attachments: [{ name: "a" }, { data: "x" }],
      },
      "AttachmentMissingData",
      "An attachment is missing data",
    );
  });

  test("another server's domain does not authorise the From address", async () => {
    const other = await newServer(`Send Other ${Date.now()}`);
    const answer = await api(
      "send/message",
      { to: "a@example.net", from: `a@${domain.name}`, plain_body: "x" },
      { key: other.api_key },
    );
    expect(answer.data.code).toBe("UnauthenticatedFromAddress");
  });

  test("odd types never crash: non-strings count as not given, non-object attachments are skipped", async () => {
    const answer = await api("send/message", {
      to: ["a@example.net", 5, null, { x: 1 }],
      cc: 7,
      from: `a@${domain.name}`,
      subject: { nested: true },
      plain_body: "x",
      headers: ["not", "an", "object"],
      attachments: ["nope", 3],
    });
    expect(Object.keys(answer.data.messages)).toEqual(["a@example.net"]);
    expect((await api("send/message", { to: 5, from: 5, plain_body: 5 })).data.code).toBe("NoRecipients");
  });
});

describe("server/create", () => {
  const create = (params: object) => api("server/create", params, { key: null, master: MASTER_KEY });

  test("creates a Live server with fresh keys and the first server's endpoints", async () => {
    log.clear();
    const answer = await create({ name: "Staging Mail", mode: "Development" });
    expect(answer).toEqual(
      success({
        id: expect.any(Number),
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: "Staging Mail",
        permalink: "staging-mail",
        mode: "Development",
        api_key: expect.stringMatching(/^[A-Za-z0-9]{24}$/),
        smtp_key: expect.stringMatching(/^[A-Za-z0-9]{24}$/),
      }),
    );
    const { id, api_key: apiKey, smtp_key: smtpKey } = answer.data;
    expect(log.all()[0].effect).toEqual({ created: { kind: "server", id, name: "Staging Mail" } });
    expect(
      store.state.endpoints.filter((e) => e.serverId === id).map(({ name, url }) => ({ name, url })),
    ).toEqual(mainEndpoints().map(({ name, url }) => ({ name, url })));
    expect((await api("domains/list", {}, { key: apiKey })).data).toEqual([]);
    expect((await api("domains/list", {}, { key: smtpKey })).data.code).toBe("InvalidServerAPIKey");
  });

  test("validation: mode, name taken (case-insensitively), permalink rules", async () => {
    await create({ name: "Taken Name", mode: "Live" });
    const message = async (params: object) => (await create(params)).data.message;
    expect(await create({ name: "Fine", mode: "live" })).toEqual(
      failure({
        message: "Mode is not included in the list",
        errors: ["Mode is not included in the list"],
        code: "ValidationError",
      }),
    );
    expect(await message({ name: "TAKEN NAME", mode: "Live" })).toBe(
      "Name has already been taken and Permalink has already been taken",
    );
    expect(await message({ name: "taken-name", mode: "Live" })).toBe("Permalink has already been taken");
    expect(await message({ name: "New", mode: "Live" })).toBe("Permalink is reserved");
    expect(await message({ name: "my_server", mode: "Live" })).toBe("Permalink is invalid");
    expect(await message({ name: "!!!", mode: "Live" })).toBe("Permalink can't be blank");
    expect((await create({ name: "Café Crème", mode: "Live" })).data.permalink).toBe("cafe-creme");
  });

  test("parameter errors", async () => {
    expect(await create({ mode: "Live" })).toEqual(
      parameterError("`name` parameter is required but is missing"),
    );
    expect(await create({ name: "X" })).toEqual(
      parameterError("`mode` parameter is required but is missing"),
    );
    expect(await create({ name: 1, mode: "Live" })).toEqual(
      parameterError("`name` parameter should be a string"),
    );
  });
});

describe("seedServer", () => {
  test("is idempotent by name", () => {
    const count = store.state.credentials.length;
    const again = seedServer(store, { name: "main", apiKey: "other", smtpKey: "other2", endpoints: [] });
    expect(again.name).toBe("Main");
    expect(store.state.credentials.length).toBe(count);
  });
});
