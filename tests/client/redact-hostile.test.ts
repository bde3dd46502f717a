import { interpretAnswer } from "../../provider/client/interpret";
import { KEY_FRAGMENT_LENGTH } from "../../provider/client/redact";

/** Every run of KEY_FRAGMENT_LENGTH characters of `key` that `text` still holds, in any case. */
function fragmentsLeft(text: string, key: string): string[] {
  const left: string[] = [];
  for (let i = 0; i + KEY_FRAGMENT_LENGTH <= key.length; i++) {
    const fragment = key.slice(i, i + KEY_FRAGMENT_LENGTH);
    if (text.toLowerCase().includes(fragment.toLowerCase())) left.push(fragment);
  }
  return left;
}

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
