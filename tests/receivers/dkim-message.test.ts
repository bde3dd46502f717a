import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import {
  canonicalizeBodyRelaxed,
  canonicalizeBodySimple,
  canonicalizeHeaderRelaxed,
  canonicalizeHeaderSimple,
  DkimSignOptions,
  DkimTxtLookup,
  dkimSignatureField,
  signDkim,
  splitMessage,
  verifyDkim,
} from "../../provider/receivers/dkim-message";
import { readDkimKey } from "../../provider/receivers/dkim-key";
import { parseTagList } from "../../provider/receivers/dkim-tags";

/** DKIM signing and verifying (RFC 6376), and its pure parts, against known vectors. */

const CRLF = "\r\n";

/** RFC 6376 §3.4.5's example message, `<SP>` and `<HTAB>` written out. */
const RFC_EXAMPLE = {
  fields: ["A: X", `B : Y\t${CRLF}\tZ  `],
  body: ` C ${CRLF}D \t E${CRLF}${CRLF}${CRLF}`,
};

/**
 * Postal's own DKIM test vector: spec/examples/dkim_signing/email1.msg in postalserver/postal
 * (MIT), the key, time and expected `bh=`/`b=` its spec/lib/dkim_header_spec.rb checks. The
 * message, as Postal sent it, already carries the signature Postal made (unfolded).
 */
const POSTAL = {
  domain: "adamtest.viaduct.io",
  selector: "postal-hg3YOm",
  time: 1626973299,
  headers: "date:from:to:message-id:subject:mime-version:content-type:content-transfer-encoding",
  bh: "mvuu3b9qEfdaZCSaVxLvRSqKbMB5YN4qxRCRw5FtvuE=",
  b: "UZgYjsed5ngc9+U/80FMsHIWLTaxj/OBc5r1l9sKbOIz0rmdRnp+X/YCFq16/AY8PWsrJh+/FgIs/zR9hWn+F2iz7dSfvnTE70zKy1q+JIyNh5cw1HegnIgZqG5S6IdliiwaiCFlxMbya790z//jUh5pJdOcm2QuA+fDOGdfU3k=",
  key: [
    "-----BEGIN RSA PRIVATE KEY-----",
    "MIICWwIBAAKBgQDVebmUOjOp4WhVFdwXiHE0sIN0/pxG1lXka8b7wCcKXo7c0Bcp",
    "2t77AUP3Lr3HOdY1OKYU8UzbLR5dahvwoodEo2QgFB6wxP9FF/koip+YdmWSscZI",
    "9xMZBPcJYfMa3MtC2JC0aDHaKRTSlehg9/T77dJEL11pePdKJtyWZsxNlwIDAQAB",
    "AoGAYBdWzb4VG1b3W7VnSMCGFK2Pvs4NEmXQa+2HuDKaYDSIIiUZCCIZVOsQ6OcF",
    "TfRe074YJD0p107L6EinIv5F3HEp6pMT3gzo057mPabskohUXbDXcX3kq+0EDMYx",
    "1HmlyRvWb6CI79hZrJavF5vOPZxSnM123Y7L0wc1WEKPxSECQQDq3iH/JNPmwDBS",
    "DeY6KR6+q7hKGmvcfWfiPQh+PYaekE6635+au3qE8sp+xwiQDbsq9ywwj8J/8Lzt",
    "FnvSi+/DAkEA6K7Zw8OHZpq3QwEfazTSm2A+iciD88ISl4g+71Cu6AVnaip5KdxI",
    "yiEWE3z/3Y99NPyL1AGouohBCqHD3qOBnQJAWumRD0oaG//YtGpc67ZvCC9ALq77",
    "gWWpiJFHcFYwfcAuOXfGOAbJ7hxs9ZXlYp1uDbuPh1yeVRfCiaNiWqWAMQJAJnuc",
    "qoLxJugZvSw3XQy8dFQjo7gVEsCbQJKZDg2DD/6szuM9bM3w//Ue6JQ44RT1OUk3",
    "exXXKRqV30NH2M+kBQJAJmVIeroVONXhsw/O18dtM4zSbr4glPKBHz73MVO3WK5v",
    "ZM1TKedFNOujh8cEyYsoQRaIbGvTcnSMQfMYw7Inhw==",
    "-----END RSA PRIVATE KEY-----",
  ].join("\n"),
};
const POSTAL_MESSAGE = [
  `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${POSTAL.domain}; s=${POSTAL.selector}; t=${POSTAL.time}; bh=${POSTAL.bh}; h=${POSTAL.headers}; b=${POSTAL.b}`,
  "X-Postal-MsgID: mPVbUwFRWZcU",
  "Received: from web-ui (10.210.10.54 [10.210.10.54]) by Postal with HTTP; Thu, 22 Jul 2021 17:01:39 +0000",
  "Date: Thu, 22 Jul 2021 18:01:39 +0100",
  "From: test@adamtest.viaduct.io",
  "To: JfkFM0Sy6bTz1N@dkimvalidator.com",
  "Message-ID: <d996f20d-c0c5-46d5-ba22-3bac0d859142@rp.adampostal.viaduct.io>",
  "Subject: Test Message at July 22, 2021 13:01",
  "Mime-Version: 1.0",
  "Content-Type: text/plain;",
  " charset=UTF-8",
  "Content-Transfer-Encoding: 7bit",
  "",
  "This is a message to test the delivery of messages through Postal.",
  "",
].join("\n");

const publicKeyOf = (privateKeyPem: string) =>
  createPublicKey(createPrivateKey(privateKeyPem)).export({ type: "spki", format: "der" }).toString("base64");

/** A TXT lookup answering `records` at `<selector>._domainkey.<domain>` alone, NXDOMAIN elsewhere. */
const serving =
  (name: string, ...records: string[]): DkimTxtLookup =>
  async (asked) =>
    asked.toLowerCase() === name.toLowerCase() ? records : "nxdomain";

const KEY = generateKeyPairSync("rsa", {
  modulusLength: 1024,
  publicKeyEncoding: { type: "spki", format: "der" },
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
});
const KEY_RECORD = `v=DKIM1; t=s; h=sha256; p=${KEY.publicKey.toString("base64")};`;
const lookup = serving("s1._domainkey.example.com", KEY_RECORD);

const MESSAGE = [
  "Date: Thu, 22 Jul 2021 17:01:39 +0000",
  "From: Jo <jo@example.com>",
  "To: someone@example.org",
  "Subject: Hello  there",
  "X-Unsigned: anything",
  "",
  "Hello,  world.  ",
  "",
  "",
].join(CRLF);
const sign = (options: Partial<DkimSignOptions> = {}) =>
  signDkim({
    message: MESSAGE,
    domain: "example.com",
    selector: "s1",
    privateKeyPem: KEY.privateKey,
    headers: ["from", "to", "subject", "date"],
    ...options,
  });

describe("canonicalization (RFC 6376 §3.4)", () => {
  it("reproduces §3.4.5's example, relaxed and simple", () => {
    expect(RFC_EXAMPLE.fields.map(canonicalizeHeaderRelaxed)).toEqual(["a:X", "b:Y Z"]);
    expect(canonicalizeBodyRelaxed(RFC_EXAMPLE.body)).toBe(` C${CRLF}D E${CRLF}`);
    expect(RFC_EXAMPLE.fields.map(canonicalizeHeaderSimple)).toEqual(RFC_EXAMPLE.fields);
    expect(canonicalizeBodySimple(RFC_EXAMPLE.body)).toBe(` C ${CRLF}D \t E${CRLF}`);
  });

  it("gives an empty body CRLF (simple) or nothing (relaxed), and ends a last line without CRLF", () => {
    expect(canonicalizeBodySimple("")).toBe(CRLF);
    expect(canonicalizeBodyRelaxed("")).toBe("");
    expect(canonicalizeBodyRelaxed(`  ${CRLF}\t${CRLF}`)).toBe("");
    expect(canonicalizeBodySimple("end")).toBe(`end${CRLF}`);
    expect(canonicalizeBodyRelaxed("end \t")).toBe(`end${CRLF}`);
  });

  it("splits a message into unfolded-later fields and a body, reading bare LF as CRLF", () => {
    expect(splitMessage("A: 1\nB: 2\n\t3\n\nbody\n")).toEqual({
      fields: ["A: 1", `B: 2${CRLF}\t3`],
      body: `body${CRLF}`,
    });
    expect(splitMessage("A: 1")).toEqual({ fields: ["A: 1"], body: "" });
    expect(splitMessage(`${CRLF}only body`)).toEqual({ fields: [], body: "only body" });
  });
});

describe("parseTagList (§3.2)", () => {
  it("reads tags with folding white space and a final `;`", () => {
    expect(parseTagList(` v=1;${CRLF}\ta = rsa-sha256 ; h=from : to;`)).toEqual(
      new Map([
        ["v", "1"],
        ["a", "rsa-sha256"],
        ["h", "from : to"],
      ]),
    );
  });

  it.each(["v=1; v=1", "v=1;; a=2", "novalue", "1x=2", ""])("refuses %j", (text) => {
    expect(parseTagList(text)).toBeUndefined();
  });
});

describe("readDkimKey (§3.6.1, RFC 8301)", () => {
  const p = KEY.publicKey.toString("base64");

  it("reads a key, and its testing (t=y) and strict (t=s) flags", () => {
    expect(readDkimKey(`v=DKIM1; k=rsa; p=${p}`)).toMatchObject({ bits: 1024, testing: false });
    expect(readDkimKey(`p=${p}; t=y:s`)).toMatchObject({ testing: true, strict: true });
    const pkcs1 = createPublicKey({ key: KEY.publicKey, format: "der", type: "spki" })
      .export({ type: "pkcs1", format: "der" })
      .toString("base64");
    expect(readDkimKey(`p=${pkcs1}`)).toMatchObject({ bits: 1024 });
  });

  it("says why a record cannot verify: revoked, too short, not RSA, not for sha256 or email", () => {
    const short = generateKeyPairSync("rsa", { modulusLength: 512 }).publicKey;
    const shortP = short.export({ type: "spki", format: "der" }).toString("base64");
    const cases: [string, string, string][] = [
      ["v=DKIM1; p=", "revoked", "the key is revoked: p= is empty (RFC 6376 §3.6.1)"],
      [
        `v=DKIM1; p=${shortP}`,
        "short",
        "the key has 512 bits: verifiers refuse keys under 1024 (RFC 8301 §3.2)",
      ],
      [
        `v=DKIM1; k=ed25519; p=${p}`,
        "algorithm",
        "the key record is k=ed25519, and the service signs with RSA",
      ],
      [`v=DKIM1; h=sha1; p=${p}`, "hash", "the key record's h=sha1 does not allow sha256 (RFC 6376 §3.6.1)"],
      [
        `v=DKIM1; s=tlsrpt; p=${p}`,
        "service",
        "the key record's s=tlsrpt does not allow email (RFC 6376 §3.6.1)",
      ],
      [`p=${p}; v=DKIM1`, "version", "the key record's v= is not DKIM1 first (RFC 6376 §3.6.1)"],
      ["v=DKIM1; p=bm90IGEga2V5", "no-key", "p= is not an RSA public key (RFC 6376 §3.6.1)"],
      ["v=DKIM1", "no-key", "the key record has no p= (RFC 6376 §3.6.1)"],
    ];
    for (const [record, kind, text] of cases)
      expect(readDkimKey(record)).toMatchObject({ problem: { kind, text } });
  });
});

describe("signDkim", () => {
  it("reproduces Postal's own vector (spec/examples/dkim_signing/email1.msg), laid out as Postal lays it out", () => {
    const field = dkimSignatureField({
      message: POSTAL_MESSAGE,
      domain: POSTAL.domain,
      selector: POSTAL.selector,
      privateKeyPem: POSTAL.key,
      headers: POSTAL.headers.split(":"),
      timestamp: POSTAL.time,
    });
    expect(field).toBe(
      [
        "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;",
        `d=${POSTAL.domain};`,
        `s=${POSTAL.selector}; t=${POSTAL.time};`,
        `bh=${POSTAL.bh};`,
        `h=${POSTAL.headers};`,
        `b=${POSTAL.b.match(/.{1,72}/g)!.join(`${CRLF}\t`)}`,
      ].join(`${CRLF}\t`),
    );
  });

  it("puts the signature first and the message after it, with CRLF line endings", () => {
    const signed = sign({ message: MESSAGE.replace(/\r\n/g, "\n") });
    expect(signed).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed;\r\n\td=example\.com;/);
    expect(signed.endsWith(MESSAGE)).toBe(true);
    expect(signed.replace(/\r\n/g, "")).not.toContain("\n");
  });
});

describe("verifyDkim", () => {
  const postalLookup = serving(
    `${POSTAL.selector}._domainkey.${POSTAL.domain}`,
    `p=${publicKeyOf(POSTAL.key)}`,
  );

  it("passes the signature Postal made, and ours beside it", async () => {
    expect(await verifyDkim(POSTAL_MESSAGE, postalLookup)).toEqual([
      { result: "pass", domain: POSTAL.domain, selector: POSTAL.selector, reason: expect.any(String) },
    ]);
    const resigned = signDkim({
      message: POSTAL_MESSAGE,
      domain: POSTAL.domain,
      selector: POSTAL.selector,
      privateKeyPem: POSTAL.key,
      headers: POSTAL.headers.split(":"),
    });
    expect((await verifyDkim(resigned, postalLookup)).map((r) => r.result)).toEqual(["pass", "pass"]);
  });

  it.each(["relaxed/relaxed", "relaxed/simple", "simple/relaxed", "simple/simple"] as const)(
    "round-trips with c=%s, and fails a changed body or signed header",
    async (canonicalization) => {
      const signed = sign({ canonicalization });
      expect(await verifyDkim(signed, lookup)).toEqual([
        {
          result: "pass",
          domain: "example.com",
          selector: "s1",
          reason: "signed by example.com (1024-bit key)",
        },
      ]);
      const body = signed.replace("Hello,", "Hullo,");
      expect(await verifyDkim(body, lookup)).toMatchObject([
        { result: "fail", reason: "the body hash did not verify (bh=)" },
      ]);
      const header = signed.replace("To: someone@", "To: other@");
      expect(await verifyDkim(header, lookup)).toMatchObject([
        { result: "fail", reason: "the signature did not verify (b=)" },
      ]);
      expect(
        await verifyDkim(signed.replace("X-Unsigned: anything", "X-Unsigned: changed"), lookup),
      ).toMatchObject([{ result: "pass" }]);
    },
  );

  it("reads relaxed canonicalization: re-folded headers and re-spaced body lines still pass", async () => {
    const signed = sign();
    const respaced = signed
      .replace("Subject: Hello  there", "SUBJECT:   Hello\r\n   there")
      .replace("world.  ", "world.");
    expect(await verifyDkim(respaced, lookup)).toMatchObject([{ result: "pass" }]);
  });

  it("checks the h= instances from the bottom: over-signing catches a field added above", async () => {
    const added = (signed: string) => signed.replace("Date:", "Subject: forged\r\nDate:");
    expect(await verifyDkim(added(sign()), lookup)).toMatchObject([{ result: "pass" }]);
    const overSigned = sign({ headers: ["from", "to", "subject", "subject", "date"] });
    expect(await verifyDkim(overSigned, lookup)).toMatchObject([{ result: "pass" }]);
    expect(await verifyDkim(added(overSigned), lookup)).toMatchObject([{ result: "fail" }]);
  });

  it("honours l=: text appended past the signed length passes, a length past the body fails", async () => {
    const length = Buffer.byteLength(canonicalizeBodyRelaxed(splitMessage(MESSAGE).body));
    const signed = sign({ bodyLength: length });
    expect(signed).toContain(` l=${length};`);
    expect(await verifyDkim(`${signed}Appended by a list.\r\n`, lookup)).toMatchObject([{ result: "pass" }]);
    const tooLong = sign({ bodyLength: length + 5 });
    expect(await verifyDkim(tooLong, lookup)).toMatchObject([
      { result: "fail", reason: `l=${length + 5} is longer than the body (${length} octets)` },
    ]);
  });

  it("refuses rsa-sha1, a signature missing tags, or one that does not sign From", async () => {
    const signed = sign();
    expect(await verifyDkim(signed.replace("a=rsa-sha256", "a=rsa-sha1"), lookup)).toEqual([
      {
        result: "permerror",
        domain: "example.com",
        selector: "s1",
        reason: "rsa-sha1 is not accepted (RFC 8301 §3.1)",
      },
    ]);
    expect(await verifyDkim(signed.replace(/\tbh=[^;]*;/, "\t"), lookup)).toMatchObject([
      { result: "permerror", reason: "the signature lacks bh=" },
    ]);
    expect(await verifyDkim(sign({ headers: ["to", "subject"] }), lookup)).toMatchObject([
      { result: "permerror", reason: "h= does not sign From (RFC 6376 §5.4)" },
    ]);
  });

  it("tells a missing key (permerror) from a failed lookup (temperror), and reports t=y", async () => {
    const signed = sign();
    const at = "s1._domainkey.example.com";
    const results = async (txt: DkimTxtLookup) => (await verifyDkim(signed, txt))[0];
    expect(await results(async () => "nxdomain")).toMatchObject({
      result: "permerror",
      reason: `no key record at ${at}`,
    });
    expect(await results(async () => [])).toMatchObject({ result: "permerror" });
    expect(await results(async () => "error")).toMatchObject({ result: "temperror" });
    expect(await results(() => Promise.reject(new Error("ETIMEOUT")))).toMatchObject({ result: "temperror" });
    expect(await results(serving(at, "v=DKIM1; p="))).toMatchObject({
      result: "permerror",
      reason: "the key is revoked: p= is empty (RFC 6376 §3.6.1)",
    });
    expect(await results(serving(at, `${KEY_RECORD} t=y`.replace("t=s;", "")))).toEqual({
      result: "pass",
      domain: "example.com",
      selector: "s1",
      reason: expect.any(String),
      testing: true,
    });
  });

  it("answers none for a message without a signature", async () => {
    expect(await verifyDkim(MESSAGE, lookup)).toEqual([
      { result: "none", reason: "the message has no DKIM-Signature" },
    ]);
  });
});
