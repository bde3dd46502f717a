import {
  boundedDnsQuery,
  nodeDnsQuery,
  onceDnsQuery,
  txtText,
  type DnsAnswer,
  type DnsQuery,
} from "../../provider/dns/dns-query";
import { useEmulator } from "../support/emulator";

/**
 * The package's DNS query (`nodeDnsQuery`) against the emulator's DNS server on 127.0.0.1, which
 * serves a TXT record's quoted content byte for byte (`\DDD` escapes are bytes, each quoted string
 * a character-string): TXT text is the bytes served read as UTF-8, whatever they are. And the two
 * wrappers the doctor asks through: at most N questions in flight, each question once.
 */

const emulator = useEmulator({ zones: ["example.com"] });
/**
 * The package's query, asked again (3 times in all) when it times out: `nodeDnsQuery` makes one
 * try, and c-ares cuts its 10 s to 5 s, which a loaded machine may miss once.
 */
const once = nodeDnsQuery(10_000);
const query: DnsQuery = async (server, name, type) => {
  for (let tries = 1; ; tries++) {
    const answer = await once(server, name, type);
    if (tries === 3 || !("error" in answer) || answer.error !== "timed out") return answer;
  }
};

/** Publishes `content` (Cloudflare's TXT content: quoted strings) at `name` and asks for it. */
async function served(name: string, content: string): Promise<DnsAnswer> {
  await emulator().cloudflare.addRecord("example.com", { type: "TXT", name, content });
  return query(emulator().dns.address, name, "TXT");
}

/** `\DDD` escapes of `bytes`, as a quoted TXT string writes any byte. */
const escaped = (bytes: Iterable<number>) =>
  [...bytes].map((byte) => `\\${String(byte).padStart(3, "0")}`).join("");

describe("nodeDnsQuery's TXT text", () => {
  it("is UTF-8: accented letters and symbols read as published", async () => {
    expect(await served("utf8.example.com", '"v=spf1 café ☃ -all"')).toEqual({
      values: ["v=spf1 café ☃ -all"],
    });
  });

  it("reads a character whose bytes are split across two character-strings whole", async () => {
    // é is C3 A9: the first string ends with C3, the second starts with A9.
    expect(await served("split.example.com", '"caf\\195" "\\169 au lait"')).toEqual({
      values: ["café au lait"],
    });
  });

  it("gives a C1 control as the character its UTF-8 bytes encode, and a stray byte as U+FFFD", async () => {
    // U+0085 (NEL) is C2 85 in UTF-8; 0x9B alone (an 8-bit CSI) is no UTF-8 at all.
    expect(await served("c1.example.com", '"a\\194\\133b \\155[2J"')).toEqual({
      values: ["a\u0085b \ufffd[2J"],
    });
  });

  it("reads every byte 0 to 255 as a UTF-8 reader of those bytes does", async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
    // Two strings: a character-string holds at most 255 bytes.
    const content = `"${escaped(bytes.subarray(0, 128))}" "${escaped(bytes.subarray(128))}"`;
    expect(await served("bytes.example.com", content)).toEqual({ values: [bytes.toString("utf8")] });
  });
});

describe("txtText", () => {
  it("is lossless for every byte node:dns can give: each one-byte character is its byte", () => {
    for (let byte = 0; byte < 256; byte++)
      expect(txtText([String.fromCharCode(byte)])).toBe(Buffer.from([byte]).toString("utf8"));
    // Every character U+0000–U+00FF back to its byte, each one: the step that makes it lossless.
    const all = String.fromCharCode(...Array.from({ length: 256 }, (_, byte) => byte));
    expect([...Buffer.from(all, "latin1")]).toEqual(Array.from({ length: 256 }, (_, byte) => byte));
  });
});

/** A query whose answers the test gives, one at a time, counting what is in flight. */
function heldQuery() {
  const pending: { question: string; answer: (answer: DnsAnswer) => void }[] = [];
  let inFlight = 0;
  let most = 0;
  const asked: string[] = [];
  const query: DnsQuery = (server, name, type) => {
    inFlight++;
    most = Math.max(most, inFlight);
    asked.push(`${server} ${name} ${type}`);
    return new Promise((resolve) =>
      pending.push({
        question: name,
        answer: (answer) => {
          inFlight--;
          resolve(answer);
        },
      }),
    );
  };
  return { query, pending, asked, most: () => most, inFlight: () => inFlight };
}

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("boundedDnsQuery", () => {
  it("keeps at most N questions in flight, asks them in order, and answers every one", async () => {
    const held = heldQuery();
    const bounded = boundedDnsQuery(held.query, 16);
    const names = Array.from({ length: 100 }, (_, i) => `n${i}.example.com`);
    const answers = Promise.all(names.map((name) => bounded("127.0.0.1", name, "TXT")));
    await settle();
    expect(held.inFlight()).toBe(16);
    while (held.pending.length > 0) {
      const { question, answer } = held.pending.shift()!;
      answer({ values: [question] });
      await settle();
    }
    expect(held.most()).toBe(16);
    expect(held.asked.map((line) => line.split(" ")[1])).toEqual(names);
    expect(await answers).toEqual(names.map((name) => ({ values: [name] })));
  });

  it("gives the turn on when a question fails", async () => {
    const bounded = boundedDnsQuery(() => Promise.reject(new Error("socket closed")), 1);
    await expect(bounded(undefined, "a.example.com", "TXT")).rejects.toThrow("socket closed");
    await expect(bounded(undefined, "b.example.com", "TXT")).rejects.toThrow("socket closed");
  });
});

describe("onceDnsQuery", () => {
  it("asks each server each name and type once, names without letter case or a final dot", async () => {
    const held = heldQuery();
    const once = onceDnsQuery(held.query);
    const answers = Promise.all([
      once("127.0.0.1:53", "Mail.Example.com", "TXT"),
      once("127.0.0.1:53", "mail.example.com.", "TXT"),
      once("127.0.0.1:54", "mail.example.com", "TXT"),
      once("127.0.0.1:53", "mail.example.com", "MX"),
    ]);
    await settle();
    expect(held.asked).toEqual([
      "127.0.0.1:53 Mail.Example.com TXT",
      "127.0.0.1:54 mail.example.com TXT",
      "127.0.0.1:53 mail.example.com MX",
    ]);
    for (const { answer } of held.pending) answer({ nxdomain: true });
    expect(await answers).toHaveLength(4);
  });
});
