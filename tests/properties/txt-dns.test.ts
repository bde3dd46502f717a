import fc from "fast-check";
import { sameDomainName } from "../../provider/client";
import type { DnsRecord } from "../../provider/client";
import { cloudflareContent, cloudflareName, quoteTxt, splitUtf8, unquoteTxt } from "../../provider/dns";
import { isValidHostname } from "../../emulator/cloudflare/names";
import { useEmulator } from "../support/emulator";
import { resolverAt } from "../support/dns-client";

/**
 * TXT quoting/splitting and DNS name normalisation (issue 5 §3), beyond tests/dns/txt.test.ts
 * (which has quote → unquote round-trips and the 255-byte bound): what DNS actually serves for
 * content published through the Cloudflare stand-in, canonical forms, greedy splitting,
 * idempotence of the Cloudflare mappings, and domain-name comparison.
 */

const emulator = useEmulator({ dns: { dkimKeyBits: 1024 } });

/** Text without lone surrogates (those cannot be UTF-8 encoded and back, by any TXT path). */
const text = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: "grapheme", maxLength }),
    fc.string({ unit: "binary", maxLength }),
    fc.string({
      unit: fc.constantFrom('"', "\\", " ", ";", "=", "a", "é", "€", "😀", "\t", "\\065"),
      maxLength,
    }),
    fc.tuple(fc.nat(900), fc.constantFrom("A", "é", "€", "😀")).map(([n, c]) => `v=DKIM1; p=${c.repeat(n)}`),
  );

/** TXT strings joined the way a resolver does, as the UTF-8 text they carry. */
function joined(strings: string[]): string {
  // Node hands TXT character-strings over byte for byte as latin1 strings.
  return Buffer.from(strings.join(""), "latin1").toString("utf8");
}

let counter = 0;

async function cloudflare<T>(path: string, init: { method: string; body?: unknown }): Promise<T> {
  const response = await fetch(`${emulator().cloudflare.url}${path}`, {
    method: init.method,
    headers: {
      Authorization: `Bearer ${emulator().cloudflare.apiToken}`,
      "Content-Type": "application/json",
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const answer = (await response.json()) as { success: boolean; errors: unknown[]; result: T };
  if (!answer.success) throw new Error(`${init.method} ${path}: ${JSON.stringify(answer.errors)}`);
  return answer.result;
}

interface StoredRecord {
  id: string;
  name: string;
  type: string;
  content: string;
}

/** Publishes a record in the stand-in's zone, returns what it stored. */
function publish(record: { type: string; name: string; content: string; priority?: number }) {
  const zone = emulator().cloudflare.zones[0];
  return cloudflare<StoredRecord>(`/zones/${zone.id}/dns_records`, {
    method: "POST",
    body: { ttl: 300, proxied: false, ...record },
  });
}

const resolver = () => resolverAt(emulator().dns.address);

/** Random ASCII letter case. */
const recase = (name: string, flips: boolean[]) =>
  [...name]
    .map((c, i) => (flips[i % Math.max(1, flips.length)] ? c.toUpperCase() : c.toLowerCase()))
    .join("");

describe("TXT through the Cloudflare stand-in and the emulator's DNS server", () => {
  it("quoteTxt content is stored exactly as sent, and DNS serves exactly the value, in ≤ 255-byte strings", async () => {
    await fc.assert(
      fc.asyncProperty(
        text(700),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        async (value, flips) => {
          const name = `txt${++counter}.example.com`;
          const content = quoteTxt(value);
          // Published under a name in any letter case, with or without the trailing dot.
          const stored = await publish({
            type: "TXT",
            name: recase(`${name}${counter % 2 ? "." : ""}`, flips),
            content,
          });
          // Cloudflare keeps content that is already split: no drift for the DnsRecord to see.
          expect(stored.content).toBe(content);
          expect(stored.name).toBe(name);

          const strings = (
            await resolver().resolveTxt(
              recase(
                name,
                flips.map((f) => !f),
              ),
            )
          )[0];
          expect(joined(strings)).toBe(value);
          for (const piece of strings) expect(Buffer.byteLength(piece, "latin1")).toBeLessThanOrEqual(255);
          // Each served string is one of quoteTxt's pieces: never a cut character.
          expect(strings.map((piece) => Buffer.from(piece, "latin1").toString("utf8"))).toEqual(
            splitUtf8(value, 255),
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it("one long quoted string (as a user might send it) is split by the stand-in; DNS still serves the same bytes", async () => {
    await fc.assert(
      fc.asyncProperty(text(700), async (value) => {
        const name = `long${++counter}.example.com`;
        const content = `"${value.replace(/["\\]/g, "\\$&")}"`;
        const stored = await publish({ type: "TXT", name, content });
        expect(unquoteTxt(stored.content)).toBe(value);
        const strings = (await resolver().resolveTxt(name))[0];
        expect(joined(strings)).toBe(value);
        for (const piece of strings) expect(Buffer.byteLength(piece, "latin1")).toBeLessThanOrEqual(255);
      }),
      { numRuns: 25 },
    );
  });
});

describe("TXT quoting and splitting, pure", () => {
  it("quoteTxt's output is canonical: re-quoting what it unquotes gives it back", () => {
    fc.assert(
      fc.property(text(1200), (value) => {
        const quoted = quoteTxt(value);
        expect(quoteTxt(unquoteTxt(quoted))).toBe(quoted);
      }),
      { numRuns: 200 },
    );
  });

  it("unquoteTxt joins quoted strings whatever whitespace separates them (as Cloudflare may store them)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: "grapheme", maxLength: 30 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.constantFrom(" ", "  ", "\t", "\n", ""), { minLength: 6, maxLength: 6 }),
        (parts, gaps) => {
          const quoted = parts.map((part) => `"${part.replace(/["\\]/g, "\\$&")}"`);
          const content =
            gaps[0] + quoted.map((q, i) => q + (i < quoted.length - 1 ? gaps[i + 1] || " " : "")).join("");
          expect(unquoteTxt(content)).toBe(parts.join(""));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("splitUtf8 is greedy: every piece but the last is full (the next character would not fit), none empty", () => {
    fc.assert(
      fc.property(text(800), fc.integer({ min: 4, max: 300 }), (value, max) => {
        const parts = splitUtf8(value, max);
        expect(parts.join("")).toBe(value);
        if (value === "") expect(parts).toEqual([""]);
        else expect(parts.every((part) => part.length > 0)).toBe(true);
        parts.slice(0, -1).forEach((part, i) => {
          const next = String.fromCodePoint(parts[i + 1].codePointAt(0)!);
          expect(Buffer.byteLength(part + next, "utf8")).toBeGreaterThan(max);
        });
      }),
      { numRuns: 200 },
    );
  });

  it("quoteTxt makes the fewest 255-byte strings: as many as splitUtf8 pieces, ceil(bytes/255) for one-byte text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-ascii", maxLength: 2000 }), (value) => {
        const strings = quoteTxt(value).match(/"(?:[^"\\]|\\.)*"/g) ?? [];
        expect(strings).toHaveLength(Math.max(1, Math.ceil(value.length / 255)));
      }),
      { numRuns: 100 },
    );
  });
});

describe("Cloudflare name and content mappings", () => {
  const hostName = fc
    .array(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,6}[a-z0-9])?$/), { minLength: 1, maxLength: 4 })
    .map((labels) => [...labels, "example", "com"].join("."));
  const record = fc
    .record({
      purpose: fc.constantFrom("spf", "dkim", "mx", "return_path"),
      type: fc.constantFrom("TXT", "txt", "CNAME", "cname", "MX", "Mx", "A"),
      name: fc.tuple(hostName, fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.boolean()),
      content: fc.oneof(
        hostName.map((h) => `${h}.`),
        hostName,
        text(300),
      ),
    })
    .map(({ purpose, type, name: [name, flips, dot], content }) => ({
      purpose,
      type,
      name: `${recase(name, flips)}${dot ? "." : ""}`,
      content: type.toUpperCase() === "TXT" ? content : recase(content, [true, false]),
      priority: 10,
    })) as fc.Arbitrary<DnsRecord>;

  it("cloudflareName is idempotent (lowercase, no trailing dot) and agrees with sameDomainName", () => {
    fc.assert(
      fc.property(record, (r) => {
        const once = cloudflareName(r);
        expect(cloudflareName({ ...r, name: once })).toBe(once);
        expect(once).toBe(once.toLowerCase());
        expect(once.endsWith(".")).toBe(false);
        expect(sameDomainName(once, r.name)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("cloudflareContent is idempotent for host targets; for TXT, on the value the quoted content stands for", () => {
    fc.assert(
      fc.property(record, (r) => {
        const once = cloudflareContent(r);
        if (r.type.toUpperCase() === "TXT") {
          // Quoting escapes quotes, so TXT content must be given unquoted; what it stands for is kept.
          expect(unquoteTxt(once)).toBe(r.content);
          expect(cloudflareContent({ ...r, content: unquoteTxt(once) })).toBe(once);
        } else {
          expect(cloudflareContent({ ...r, content: once })).toBe(once);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("what the stand-in stores for a mapped record is exactly the mapped name and content (no drift)", async () => {
    await fc.assert(
      fc.asyncProperty(record, async (r) => {
        const type = r.type.toUpperCase();
        fc.pre(type !== "A");
        const name = `n${++counter}.${cloudflareName(r)}`;
        const content = cloudflareContent(r);
        // A host target the stand-in takes (as Cloudflare, it refuses "-" or "a..b" with 9007).
        fc.pre(type === "TXT" || isValidHostname(content));
        const stored = await publish({ type, name, content, ...(type === "MX" ? { priority: 10 } : {}) });
        expect(stored.name).toBe(name);
        expect(stored.content).toBe(content);
      }),
      { numRuns: 30 },
    );
  });
});

describe("domain name comparison (sameDomainName)", () => {
  /** ASCII case folding and one trailing dot, per RFC 4343 / the README's rule, written out. */
  function oracle(a: string, b: string): boolean {
    const fold = (name: string) => {
      const trimmed = name.trim();
      const bare = trimmed.endsWith(".") ? trimmed.slice(0, -1) : trimmed;
      return bare.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
    };
    return fold(a) === fold(b);
  }

  const asciiName = fc.oneof(
    fc.domain(),
    fc.stringMatching(/^[a-zA-Z0-9.-]{0,12}\.?$/),
    fc.constantFrom("", ".", "..", "a.com..", "A.COM", "a.com.", " a.com", "a.com "),
  );
  const variant = fc
    .tuple(asciiName, fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), fc.boolean())
    .map(([name, flips, dot]) => [
      name,
      `${recase(name, flips)}${dot && name === name.trim() && !name.endsWith(".") ? "." : ""}`,
    ]);

  it("is case-insensitive and ignores one trailing dot: a name equals any recased, dotted variant", () => {
    fc.assert(
      fc.property(variant, ([name, other]) => {
        expect(sameDomainName(name, other)).toBe(true);
        expect(sameDomainName(other, name)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("agrees with the oracle on arbitrary pairs, and is reflexive and symmetric", () => {
    fc.assert(
      fc.property(fc.oneof(fc.tuple(asciiName, asciiName), variant), ([a, b]) => {
        expect(sameDomainName(a, b)).toBe(oracle(a, b));
        expect(sameDomainName(a, b)).toBe(sameDomainName(b, a));
        expect(sameDomainName(a, a)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
