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
