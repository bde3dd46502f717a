import fc from "fast-check";
import { dmarcRecordContent, isDmarcRecord, parseDmarc, quoteTxt, unquoteTxt } from "../../provider/dns";
import type { DmarcAlignment, DmarcArgs, DmarcFailureReportOption, DmarcPolicy } from "../../provider/dns";
import { dmarcProblems } from "../../provider/inputs";

/**
 * The DMARC module over generated settings: every valid `DmarcArgs` gives content that reads back
 * as the tags an oracle written from RFC 7489 expects, in its order, with no `;` or `,` inside a
 * value, the same whatever the order the settings are given in, and split into TXT strings as
 * quoteTxt splits; every invalid one gets at least one problem, each naming the property that was
 * spoiled; nothing a JavaScript program can pass makes the checks throw.
 */

type Settings = Record<string, unknown>;

const POLICIES: DmarcPolicy[] = ["none", "quarantine", "reject"];
const ALIGNMENTS: DmarcAlignment[] = ["relaxed", "strict"];
/** In the order of the `fo` tag's characters `0`, `1`, `d`, `s`. */
const OPTIONS: DmarcFailureReportOption[] = ["allFail", "anyFail", "dkimFail", "spfFail"];
const SETTING_NAMES = [
  "policy",
  "subdomainPolicy",
  "aggregateReports",
  "failureReports",
  "percent",
  "dkimAlignment",
  "spfAlignment",
  "failureReportOptions",
];

// ---- the oracle -----------------------------------------------------------------------------------

/** The tags RFC 7489 §6.3 gives the settings, defaults left out, in the order the record has them. */
function expectedTags(args: DmarcArgs): Record<string, string> {
  const tags: Record<string, string> = { v: "DMARC1", p: args.policy };
  if (args.subdomainPolicy !== undefined && args.subdomainPolicy !== args.policy)
    tags.sp = args.subdomainPolicy;
  if (args.dkimAlignment === "strict") tags.adkim = "s";
  if (args.spfAlignment === "strict") tags.aspf = "s";
  if (args.percent !== undefined && args.percent !== 100) tags.pct = `${args.percent}`;
  if (args.aggregateReports !== undefined) tags.rua = args.aggregateReports.join(",");
  if (args.failureReports !== undefined) tags.ruf = args.failureReports.join(",");
  const fo = ["0", "1", "d", "s"].filter((_, i) => args.failureReportOptions?.includes(OPTIONS[i]));
  if (fo.length > 0 && fo.join(":") !== "0") tags.fo = fo.join(":");
  return tags;
}

// ---- valid settings -------------------------------------------------------------------------------

/** Random ASCII letter case. */
const recase = (text: string, flips: boolean[]) =>
  [...text].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase())).join("");

/** What a mailto: URI may carry as is within an address; anything else is percent-encoded. */
const encode = (text: string, everything: boolean) =>
  [...text]
    .map((c) =>
      !everything && /[A-Za-z0-9\-._~$&'*+=/]/.test(c)
        ? c
        : `%${c.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase()}`,
    )
    .join("");

const atext = fc.constantFrom(..."aZ09.-_~!#$%&'*+/=?^`{|}".split("").filter((c) => c !== "."));
/** RFC 5322's dot-atom (`first.last+tag`), or a quoted string with what a dot-atom cannot hold. */
const localPart = fc.oneof(
  fc
    .array(fc.string({ unit: atext, minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 })
    .map((atoms) => atoms.join(".")),
  fc
    .string({
      unit: fc.constantFrom("a", "b", " ", ",", ";", "@", "!", "(", ")", ":", "<", "["),
      maxLength: 20,
    })
    .map((text) => `"${text}"`),
);
const label = fc
  .stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/)
  // Labels with "--" third and fourth are reserved (xn-- must be punycode).
  .filter((text) => !/^..--/.test(text));
const domain = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.stringMatching(/^[a-z]{2,8}$/))
  .map(([labels, tld]) => [...labels, tld].join("."));
const sizeLimit = fc.option(
  fc
    .tuple(fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }), fc.constantFrom("", "k", "m", "g", "t", "K", "M"))
    .map(([size, unit]) => `!${size}${unit}`),
  { nil: "" },
);
const reportUri = fc
  .record({
    scheme: fc.constantFrom("mailto", "MAILTO", "Mailto"),
    local: localPart,
    everything: fc.boolean(),
    domain,
    flips: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
    size: sizeLimit,
  })
  .map((u) => `${u.scheme}:${encode(u.local, u.everything)}@${recase(u.domain, u.flips)}${u.size}`);
const uriList = fc.uniqueArray(reportUri, { minLength: 1, maxLength: 8 });

const validArgs: fc.Arbitrary<DmarcArgs> = fc
  .record(
    {
      policy: fc.constantFrom(...POLICIES),
      subdomainPolicy: fc.constantFrom(...POLICIES),
      aggregateReports: uriList,
      failureReports: uriList,
      percent: fc.integer({ min: 0, max: 100 }),
      dkimAlignment: fc.constantFrom(...ALIGNMENTS),
      spfAlignment: fc.constantFrom(...ALIGNMENTS),
      failureReportOptions: fc.shuffledSubarray(OPTIONS, { minLength: 1 }),
    },
    { requiredKeys: ["policy"] },
  )
  // fo only with ruf (receivers ignore it otherwise; the checks refuse it).
  .map(({ failureReportOptions, ...rest }): DmarcArgs =>
    rest.failureReports && failureReportOptions ? { ...rest, failureReportOptions } : rest,
  );

/** The same settings, their keys and fo's options in another order. */
const reordered = (args: DmarcArgs) =>
  fc
    .tuple(
      fc.shuffledSubarray(Object.entries(args), { minLength: Object.keys(args).length }),
      fc.shuffledSubarray(args.failureReportOptions ?? [], {
        minLength: args.failureReportOptions?.length ?? 0,
      }),
    )
    .map(([entries, options]) => {
      const copy = Object.fromEntries(entries) as DmarcArgs;
      return args.failureReportOptions ? { ...copy, failureReportOptions: options } : copy;
    });

// ---- invalid settings -----------------------------------------------------------------------------

/** Anything a JavaScript program could give that is not one of `allowed` (null and undefined mean "left out"). */
const notOneOf = (allowed: readonly string[]) =>
  fc.oneof(
    fc
      .anything()
      .filter((v) => v !== undefined && v !== null && !(typeof v === "string" && allowed.includes(v))),
    fc.constantFrom(...allowed).map((v) => v.toUpperCase()),
    fc.constantFrom(...allowed).map((v) => ` ${v}`),
    fc.constantFrom(...allowed).map((v) => v[0]),
  );

const insertAt = (text: string, index: number, insert: string) =>
  text.slice(0, index) + insert + text.slice(index);

/** A report URI that must be refused: not text, or a good one spoiled. */
const badUri: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything().filter((v) => typeof v !== "string"),
  fc.constant(""),
  // a character that breaks the record or that a URI cannot carry, anywhere
  fc
    .tuple(reportUri, fc.nat(), fc.constantFrom(";", ",", "!", " ", "\n", '"', "^", "é", "😀", "\\"))
    .map(([uri, at, c]) => insertAt(uri, at % (uri.length + 1), c)),
  reportUri.map((uri) => uri.replace(/^mailto:/i, "")),
  fc
    .tuple(reportUri, fc.constantFrom("http://", "https://", "ftp:"))
    .map(([uri, scheme]) => uri.replace(/^mailto:/i, scheme)),
  reportUri.map((uri) => uri.replace("@", "")),
  reportUri.map((uri) => uri.replace("@", "@@")),
  reportUri.map((uri) => uri.replace("@", "@.")),
  reportUri.map((uri) => uri.replace(/(![0-9]+[a-z]?)?$/i, "!0")),
  reportUri.map((uri) => uri.replace(/(![0-9]+[a-z]?)?$/i, "!18446744073709551616")),
  reportUri.map((uri) => uri.replace(/(![0-9]+[a-z]?)?$/i, "!10mb")),
  reportUri.map((uri) => `${uri}?subject=dmarc`),
  reportUri.map((uri) => uri.replace(/@([^!]*)/, "@$1_x")),
  reportUri.map((uri) => uri.replace(/@([^!]*)/, "@$1.")),
  reportUri.map((uri) => uri.replace(/:[^@]*@/, ":a..b@")),
);

interface Spoiled {
  args: Settings;
  /** The one property every problem must name. */
  path: string;
}

/** A list setting spoiled: not a list, empty, a bad entry inserted or put in place of one, a repeat. */
function spoiledList(
  list: unknown[],
  key: string,
  badEntry: fc.Arbitrary<unknown>,
): fc.Arbitrary<{ value: unknown; path: string }> {
  return fc.oneof(
    fc
      .anything()
      .filter((v) => v !== undefined && v !== null && !Array.isArray(v))
      .map((value) => ({ value, path: `dmarc.${key}` })),
    fc.constant({ value: [], path: `dmarc.${key}` }),
    fc.tuple(fc.nat(list.length), fc.boolean(), badEntry).map(([index, replace, entry]) => {
      const value = [...list];
      value.splice(index, replace ? 1 : 0, entry);
      return { value, path: `dmarc.${key}[${index}]` };
    }),
    fc.tuple(fc.nat(list.length - 1), fc.nat(list.length)).map(([from, to]) => {
      const value = [...list];
      value.splice(Math.max(to, from + 1), 0, list[from]);
      return { value, path: `dmarc.${key}[${Math.max(to, from + 1)}]` };
    }),
  );
}

const spoiled: fc.Arbitrary<Spoiled> = fc
  .tuple(validArgs, uriList, fc.shuffledSubarray(OPTIONS, { minLength: 1 }))
  .chain(([valid, someUris, someOptions]) => {
    const args: Settings = { ...valid };
    const without = (key: string) => Object.fromEntries(Object.entries(args).filter(([k]) => k !== key));
    const withRuf = { ...args, failureReports: valid.failureReports ?? someUris };
    return fc.oneof(
      fc.constant({ args: without("policy"), path: "dmarc.policy" }),
      fc
        .constantFrom("policy", "subdomainPolicy")
        .chain((key) =>
          notOneOf(POLICIES).map((value) => ({ args: { ...args, [key]: value }, path: `dmarc.${key}` })),
        ),
      fc
        .constantFrom("dkimAlignment", "spfAlignment")
        .chain((key) =>
          notOneOf(ALIGNMENTS).map((value) => ({ args: { ...args, [key]: value }, path: `dmarc.${key}` })),
        ),
      fc
        .oneof(
          fc.integer({ min: 101 }),
          fc.integer({ max: -1 }),
          fc.double().filter((v) => !Number.isInteger(v)),
          fc.integer({ min: 0, max: 100 }).map(String),
          fc.anything().filter((v) => typeof v !== "number" && v !== undefined && v !== null),
        )
        .map((percent) => ({ args: { ...args, percent }, path: "dmarc.percent" })),
      fc
        .constantFrom("aggregateReports", "failureReports")
        .chain((key) =>
          spoiledList((valid[key as keyof DmarcArgs] as string[] | undefined) ?? someUris, key, badUri).map(
            ({ value, path }) => ({ args: { ...args, [key]: value }, path }),
          ),
        ),
      spoiledList(
        valid.failureReportOptions ?? someOptions,
        "failureReportOptions",
        fc.anything().filter((v) => !(typeof v === "string" && (OPTIONS as string[]).includes(v))),
      ).map(({ value, path }) => ({ args: { ...withRuf, failureReportOptions: value }, path })),
      fc.constant({
        args: {
          ...Object.fromEntries(Object.entries(args).filter(([k]) => k !== "failureReports")),
          failureReportOptions: valid.failureReportOptions ?? someOptions,
        },
        path: "dmarc.failureReportOptions",
      }),
      fc
        .tuple(
          fc.oneof(
            fc.string({ minLength: 1, maxLength: 20 }),
            fc.constantFrom("polciy", "p", "rua", "v", "version", "__proto__", "constructor", "toString", ""),
          ),
          fc.anything(),
        )
        .filter(([key]) => !SETTING_NAMES.includes(key))
        .map(([key, value]) => ({
          args: Object.defineProperty({ ...args }, key, { value, enumerable: true }),
          path: /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `dmarc.${key}` : `dmarc[${JSON.stringify(key)}]`,
        })),
    );
  });

// ---- properties -----------------------------------------------------------------------------------

describe("DMARC record content from valid settings", () => {
  it("has no problems, and reads back as the oracle's tags, in the RFC's order", () => {
    fc.assert(
      fc.property(validArgs, (args) => {
        expect(dmarcProblems(args)).toEqual([]);
        const tags = parseDmarc(dmarcRecordContent(args));
        expect(tags).toEqual(expectedTags(args));
        expect(Object.keys(tags ?? {})).toEqual(Object.keys(expectedTags(args)));
      }),
      { numRuns: 300 },
    );
  });

  it("never has a ';' inside a value, nor a ',' inside a URI: each tag and each URI comes back whole", () => {
    fc.assert(
      fc.property(validArgs, (args) => {
        const content = dmarcRecordContent(args);
        const pieces = content.split(";");
        expect(pieces).toHaveLength(Object.keys(expectedTags(args)).length);
        for (const piece of pieces) expect(piece.trim()).toMatch(/^[a-z]+=[^;\s][^;]*$/);
        const tags = parseDmarc(content) ?? {};
        if (args.aggregateReports) expect(tags.rua.split(",")).toEqual(args.aggregateReports);
        if (args.failureReports) expect(tags.ruf.split(",")).toEqual(args.failureReports);
        // Printable ASCII only: nothing for TXT quoting or a resolver to mangle.
        expect(content).toMatch(/^[\x20-\x7e]+$/);
      }),
      { numRuns: 300 },
    );
  });

  it("is the same whatever the order of the settings and of the fo options", () => {
    fc.assert(
      fc.property(
        validArgs.chain((args) => fc.tuple(fc.constant(args), reordered(args))),
        ([args, again]) => {
          expect(dmarcRecordContent(again)).toBe(dmarcRecordContent(args));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("fits one TXT string up to 255 bytes; past that quoteTxt splits it into full strings that read back the same", () => {
    let long = 0;
    fc.assert(
      fc.property(validArgs, (args) => {
        const content = dmarcRecordContent(args);
        const quoted = quoteTxt(content);
        const strings = (quoted.match(/"(?:[^"\\]|\\.)*"/g) ?? []).map((s) => s.slice(1, -1));
        const bytes = Buffer.byteLength(content, "utf8");
        if (bytes <= 255) expect(strings).toEqual([content]);
        else long++;
        expect(strings).toHaveLength(Math.ceil(bytes / 255));
        for (const s of strings) expect(Buffer.byteLength(s, "utf8")).toBeLessThanOrEqual(255);
        expect(unquoteTxt(quoted)).toBe(content);
        expect(parseDmarc(quoted)).toEqual(parseDmarc(content));
      }),
      { numRuns: 300 },
    );
    // The generator makes records past one string often enough for this to mean something.
    expect(long).toBeGreaterThan(10);
  });

  it("is read the same with tag names in any case and whitespace around '=' and ';'", () => {
    const space = fc.constantFrom("", " ", "  ", "\t");
    fc.assert(
      fc.property(
        validArgs,
        fc.array(fc.tuple(fc.boolean(), space, space, space, space), { minLength: 1, maxLength: 12 }),
        (args, styles) => {
          const content = dmarcRecordContent(args);
          const restyled = content
            .split("; ")
            .map((piece, i) => {
              const [upper, a, b, c, d] = styles[i % styles.length];
              const [tag, value] = [piece.slice(0, piece.indexOf("=")), piece.slice(piece.indexOf("=") + 1)];
              return `${a}${upper ? tag.toUpperCase() : tag}${b}=${c}${value}${d}`;
            })
            .join(";");
          expect(isDmarcRecord(restyled)).toBe(true);
          expect(parseDmarc(restyled)).toEqual(parseDmarc(content));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("DMARC settings that are not valid", () => {
  it("always get at least one problem, and every problem names the property that was spoiled", () => {
    fc.assert(
      fc.property(spoiled, ({ args, path }) => {
        const problems = dmarcProblems(args);
        expect(problems.length).toBeGreaterThan(0);
        for (const problem of problems) expect(problem.property).toBe(path);
        expect(() => dmarcRecordContent(args as unknown as DmarcArgs)).toThrow(
          "DMARC settings are not valid",
        );
      }),
      { numRuns: 500 },
    );
  });

  it("a spoiled report URI, in either list, always gets a problem naming its index, and only it", () => {
    fc.assert(
      fc.property(
        validArgs,
        fc.constantFrom("aggregateReports", "failureReports"),
        uriList,
        fc.nat(),
        badUri,
        (valid, key, someUris, at, uri) => {
          const list = [...((valid[key as keyof DmarcArgs] as string[] | undefined) ?? someUris)];
          const index = at % (list.length + 1);
          list.splice(index, 0, uri as string);
          const problems = dmarcProblems({ ...valid, [key]: list });
          expect(problems.length).toBeGreaterThan(0);
          for (const problem of problems) expect(problem.property).toBe(`dmarc.${key}[${index}]`);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("never make the checks throw, whatever a JavaScript program passes; content is made exactly when there is no problem", () => {
    const anySettings = fc.oneof(
      fc.anything(),
      fc
        .tuple(
          validArgs,
          fc.dictionary(fc.constantFrom(...SETTING_NAMES, "extra"), fc.anything(), { maxKeys: 3 }),
        )
        .map(([args, overrides]) => ({ ...args, ...overrides })),
    );
    fc.assert(
      fc.property(anySettings, (args) => {
        const problems = dmarcProblems(args);
        for (const problem of problems) {
          expect(problem.property).toMatch(/^dmarc($|[.[])/);
          expect(problem.reason).toMatch(/\S/);
        }
        let content: string | undefined;
        try {
          content = dmarcRecordContent(args as DmarcArgs);
        } catch (error) {
          expect((error as { problems: unknown }).problems).toEqual(problems);
        }
        expect(content === undefined).toBe(problems.length > 0);
        if (content !== undefined) expect(isDmarcRecord(content)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe("parseDmarc on any text", () => {
  it("never throws, and recognises exactly the text whose first tag is v=DMARC1", () => {
    const text = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 80 }),
      fc.string({
        unit: fc.constantFrom("v", "V", "=", "DMARC1", "dmarc1", ";", " ", "\t", '"', "p", "none", "x"),
        maxLength: 12,
      }),
    );
    fc.assert(
      fc.property(text, (value) => {
        const record = /^\s*"/.test(value) ? unquoteTxt(value) : value;
        const expected = /^[ \t\r\n]*v[ \t\r\n]*=[ \t\r\n]*dmarc1[ \t\r\n]*(;|$)/i.test(record);
        expect(isDmarcRecord(value)).toBe(expected);
        const tags = parseDmarc(value);
        expect(tags === undefined).toBe(!expected);
        if (tags) for (const name of Object.keys(tags)) expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
      }),
      { numRuns: 500 },
    );
  });
});
