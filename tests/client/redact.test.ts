import fc from "fast-check";
import { interpretAnswer } from "../../provider/client/interpret";
import { KEY_FRAGMENT_LENGTH, redact } from "../../provider/client/redact";

const KEY = "SecretServerKey123456789";

/** Every run of KEY_FRAGMENT_LENGTH characters of `key` that `text` still holds, in any case. */
function fragmentsLeft(text: string, key: string): string[] {
  const left: string[] = [];
  for (let i = 0; i + KEY_FRAGMENT_LENGTH <= key.length; i++) {
    const fragment = key.slice(i, i + KEY_FRAGMENT_LENGTH);
    if (text.toLowerCase().includes(fragment.toLowerCase())) left.push(fragment);
  }
  return left;
}

describe("redact", () => {
  it("replaces the whole key and any run of 8 of its characters, in any case", () => {
    expect(redact(`a ${KEY} b`, [KEY])).toBe("a [redacted] b");
    expect(redact(`cut: ${KEY.slice(0, 23)}…`, [KEY])).toBe("cut: [redacted]…");
    expect(redact(`tail ${KEY.slice(-8).toLowerCase()}!`, [KEY])).toBe("tail [redacted]!");
    // Seven characters are not enough to say it is the key.
    expect(redact(`x ${KEY.slice(3, 10)} y`, [KEY])).toBe(`x ${KEY.slice(3, 10)} y`);
  });

  it("leaves no run of 8 key characters in any text, wherever the key's pieces sit", () => {
    const keyChar = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
    fc.assert(
      fc.property(
        fc.string({ unit: keyChar, minLength: 24, maxLength: 24 }),
        fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.nat(24), fc.nat(24)), { maxLength: 5 }),
        (key, pieces) => {
          const text = pieces
            .map(([noise, a, b]) => noise + key.slice(Math.min(a, b), Math.max(a, b)))
            .join("");
          expect(fragmentsLeft(redact(text, [key]), key)).toEqual([]);
        },
      ),
    );
  });
});

describe("an error page that echoes the request's headers", () => {
  it("never shows a piece of the key, wherever the excerpt is cut", () => {
    // A proxy's page echoing `X-Server-API-Key: …`, with the key placed across every cut point.
    for (let pad = 120; pad <= 200; pad++) {
      const page = `<html><body><h1>502 Bad Gateway</h1><pre>${"x".repeat(pad)} X-Server-API-Key: ${KEY}</pre></body></html>`;
      const result = interpretAnswer({ operation: "domains/list", httpStatus: 502, body: page }, [KEY]);
      if (result.ok) throw new Error("expected a failure");
      expect(fragmentsLeft(result.error.message, KEY)).toEqual([]);
      expect(result.error.kind).toBe("transient");
    }
  });
});

const messageOf = (answer: Parameters<typeof interpretAnswer>[0], key: string) => {
  const result = interpretAnswer(answer, [key]);
  if (result.ok) throw new Error("expected a failure");
  return result.error.message;
};

describe("redaction against texts a hostile or foreign service sends", () => {
  it("a page whose text has letters that lengthen when lower-cased (Turkish İ) before the key", () => {
    // Postal's own 24-character alphanumeric key; a Turkish proxy page echoing it.
    const key = "SecretServerKey123456789";
    const page =
      "<html><body>GEÇERSİZ İSTEK. İZİN VERİLMEDİ. LÜTFEN API ANAHTARINIZI KONTROL EDİNİZ: " +
      `${key}</body></html>`;
    const message = messageOf({ operation: "domains/list", httpStatus: 502, body: page }, key);
    expect(fragmentsLeft(message, key)).toEqual([]);
  });

  it("the same in a JSON error message", () => {
    const key = "SecretServerKey123456789";
    const body = JSON.stringify({
      status: "error",
      data: { code: "InvalidServerAPIKey", message: `İİİİİİİİİİ geçersiz anahtar: ${key}` },
    });
    const message = messageOf({ operation: "domains/list", httpStatus: 200, body }, key);
    expect(fragmentsLeft(message, key)).toEqual([]);
  });

  // A key a header can carry (printable ASCII) with punctuation, as base64-style keys have.
  const punctuated = "q8/Zr+Tn/Lw2+Yd0/Kx7+Pa4";

  it("an echo of the key URL-encoded", () => {
    const body = JSON.stringify({
      status: "error",
      data: {
        code: "InvalidServerAPIKey",
        message: `The token provided (${encodeURIComponent(punctuated)}) was not valid`,
      },
    });
    const message = messageOf({ operation: "domains/list", httpStatus: 200, body }, punctuated);
    expect(fragmentsLeft(decodeURIComponent(message), punctuated)).toEqual([]);
  });

  it("an echo of the key JSON-escaped inside a page that is not JSON", () => {
    // A PHP/nginx debug page dumping the request headers with json_encode: `/` becomes `\/`.
    const body = `<pre>{"X-Server-API-Key":"${punctuated.replace(/\//g, "\\/")}"}</pre>`;
    const message = messageOf({ operation: "domains/list", httpStatus: 500, body }, punctuated);
    expect(fragmentsLeft(message.replace(/\\\//g, "/"), punctuated)).toEqual([]);
  });
});
