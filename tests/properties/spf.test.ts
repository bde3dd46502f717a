import fc from "fast-check";
import {
  countSpfLookups,
  isSpfRecord,
  mergeSpfIncludes,
  missingSpfIncludes,
  parseSpf,
  removeSpfIncludes,
  respellSpfIncludes,
  SPF_LOOKUP_LIMIT,
  SpfLookupNode,
  SpfResolver,
  SpfTerm,
  spfLookupProblem,
} from "../../provider/dns";

/**
 * The SPF merge and lookup count over generated records (beside tests/dns/spf.test.ts, which has
 * real-life examples): any mechanisms, qualifiers, modifiers, unknown terms, letter case and
 * spacing, with or without `all` and wherever it stands.
 */

/** Random ASCII letter case. */
const anyCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((flips) => [...text].map((c, i) => (flips[i] ? c.toUpperCase() : c)).join(""));

const DOMAINS = [
  "spf.postal.example.com",
  "_spf.google.com",
  "spf.protection.outlook.com",
  "sendgrid.net",
  "a.example.com",
];

/** A domain of the pool in any letter case, sometimes with the final dot; sometimes a macro. */
const domain = fc.oneof(
  fc
    .tuple(fc.constantFrom(...DOMAINS).chain(anyCase), fc.constantFrom("", "", "."))
    .map(([name, dot]) => name + dot),
  fc.constant("%{d}.x.example.com"),
);

const qualifier = fc.constantFrom("", "", "+", "-", "~", "?");

const mechanism = fc
  .tuple(
    qualifier,
    fc.oneof(
      domain.map((d) => `include:${d}`),
      domain.map((d) => `include: ${d}`), // tolerated, as Postal's check does
      fc.constantFrom("a", "mx", "ptr", "a/24", "mx/24//64").chain(anyCase),
      domain.map((d) => `a:${d}`),
      domain.map((d) => `mx:${d}/28`),
      domain.map((d) => `exists:${d}`),
      fc.nat(255).map((n) => `ip4:192.0.2.${n}`),
      fc.nat(0xffff).map((n) => `ip6:2001:db8::${n.toString(16)}`),
    ),
  )
  .map(([q, m]) => q + m);

const modifier = fc.oneof(
  domain.map((d) => `redirect=${d}`),
  domain.map((d) => `exp=${d}`),
  fc.nat(99).map((n) => `x-custom=${n}`),
);

const unknownTerm = fc.constantFrom("foo", "include", "include:", "spf2.0/pra", "a.example.com", "allx");

const all = fc.tuple(qualifier, anyCase("all")).map(([q, a]) => q + a);

/** SPF records: version, terms separated by 1 to 3 spaces, an `all` usually last, trailing spaces. */
const spfRecord = fc
  .record({
    version: anyCase("v=spf1"),
    terms: fc.array(fc.oneof({ weight: 4, arbitrary: mechanism }, modifier, unknownTerm), { maxLength: 8 }),
    all: fc.option(fc.tuple(all, fc.oneof(fc.constant(Infinity), fc.nat(8))), { nil: undefined }),
    separators: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 10, maxLength: 10 }),
    trailing: fc.nat(2),
  })
  .map(({ version, terms, all, separators, trailing }) => {
    const withAll = [...terms];
    if (all) withAll.splice(Math.min(all[1], withAll.length), 0, all[0]);
    const joined = withAll.map((term, i) => " ".repeat(separators[i % separators.length]) + term).join("");
    return version + joined + " ".repeat(trailing);
  });

/** What to merge: one to three domains (the service's in any case, others too). */
const includes = fc.array(
  fc.oneof(anyCase("spf.postal.example.com"), fc.constantFrom(...DOMAINS), fc.constant("%{d}.x.example.com")),
  { minLength: 1, maxLength: 3 },
);

const texts = (record: string) => parseSpf(record)!.terms.map((term) => term.text);
const sameDomain = (a: string, b: string) =>
  a.toLowerCase().replace(/\.$/, "") === b.toLowerCase().replace(/\.$/, "");
const isAll = (term: SpfTerm) => term.kind === "mechanism" && term.name === "all";
const includesOf = (record: string, name: string) =>
  parseSpf(record)!.terms.filter(
    (term) =>
      term.kind === "mechanism" &&
      term.name === "include" &&
      term.value !== undefined &&
      sameDomain(term.value, name),
  ).length;

describe("parseSpf over generated records", () => {
  it("finds every term at its offset, with only spaces between them", () => {
    fc.assert(
      fc.property(spfRecord, (record) => {
        expect(isSpfRecord(record)).toBe(true);
        const { version, terms } = parseSpf(record)!;
        expect(version.toLowerCase()).toBe("v=spf1");
        let at = version.length;
        for (const term of terms) {
          expect(record.slice(at, term.offset)).toMatch(/^ +$/);
          expect(record.slice(term.offset, term.offset + term.text.length)).toBe(term.text);
          at = term.offset + term.text.length;
        }
        expect(record.slice(at)).toMatch(/^ *$/);
      }),
      { numRuns: 300 },
    );
  });
});

describe("mergeSpfIncludes over generated records", () => {
  it("is idempotent, and the result is still an SPF record", () => {
    fc.assert(
      fc.property(spfRecord, includes, (record, add) => {
        const merged = mergeSpfIncludes(record, add);
        expect(isSpfRecord(merged)).toBe(true);
        expect(mergeSpfIncludes(merged, add)).toBe(merged);
      }),
      { numRuns: 300 },
    );
  });

  it("never duplicates an include: each is there once if it was not, as often as before if it was", () => {
    fc.assert(
      fc.property(spfRecord, includes, (record, add) => {
        const merged = mergeSpfIncludes(record, add);
        for (const name of add) {
          expect(includesOf(merged, name)).toBe(Math.max(1, includesOf(record, name)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("keeps every user term in order, inserting one block before the first all, else after the last mechanism", () => {
    fc.assert(
      fc.property(spfRecord, includes, (record, add) => {
        const terms = parseSpf(record)!.terms;
        const added = missingSpfIncludes(record, add).map((name) => `include:${name}`);
        const firstAll = terms.findIndex(isAll);
        const lastMechanism = terms.map((term) => term.kind).lastIndexOf("mechanism");
        const at = firstAll >= 0 ? firstAll : lastMechanism + 1;
        // The service's includes the record names in other letters are respelled (respellSpfIncludes).
        const before = texts(respellSpfIncludes(record, add));
        expect(texts(mergeSpfIncludes(record, add))).toEqual([
          ...before.slice(0, at),
          ...added,
          ...before.slice(at),
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the user's all, with its qualifier, as the last mechanism when it was", () => {
    fc.assert(
      fc.property(spfRecord, includes, (record, add) => {
        const mechanisms = (text: string) =>
          parseSpf(text)!.terms.filter((term) => term.kind === "mechanism");
        const before = mechanisms(record);
        const last = before[before.length - 1];
        fc.pre(last !== undefined && isAll(last));
        const after = mechanisms(mergeSpfIncludes(record, add));
        expect(after[after.length - 1].text).toBe(last.text);
      }),
      { numRuns: 300 },
    );
  });

  it("adds nothing to a record that already has the includes (any case, final dot): it only respells them", () => {
    fc.assert(
      fc.property(
        spfRecord,
        includes,
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        (record, add, upper) => {
          const merged = mergeSpfIncludes(record, add);
          const recased = add.map((name, i) => (upper[i] ? name.toUpperCase() : `${name}.`));
          expect(missingSpfIncludes(merged, recased)).toEqual([]);
          expect(mergeSpfIncludes(merged, recased)).toBe(respellSpfIncludes(merged, recased));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("removeSpfIncludes over generated records", () => {
  it("gives back the user's record byte for byte when it lacked the includes", () => {
    fc.assert(
      fc.property(spfRecord, includes, (record, add) => {
        fc.pre(add.every((name) => includesOf(record, name) === 0));
        expect(removeSpfIncludes(mergeSpfIncludes(record, add), add)).toBe(record);
      }),
      { numRuns: 300 },
    );
  });

  it("gives back the user's record when given what the merge added, whatever the record had (its includes as the service spells them)", () => {
    fc.assert(
      fc.property(spfRecord, includes, (record, add) => {
        const added = missingSpfIncludes(record, add);
        expect(removeSpfIncludes(mergeSpfIncludes(record, add), added)).toBe(respellSpfIncludes(record, add));
      }),
      { numRuns: 300 },
    );
  });

  it("leaves no authorizing include of those domains, and nothing else changed in order", () => {
    fc.assert(
      fc.property(spfRecord, includes, (record, remove) => {
        const removed = removeSpfIncludes(record, remove);
        const isRemovable = (term: SpfTerm) =>
          term.kind === "mechanism" &&
          term.name === "include" &&
          (term.qualifier === "" || term.qualifier === "+") &&
          term.value !== undefined &&
          remove.some((name) => sameDomain(name, term.value!));
        expect(parseSpf(removed)!.terms.some(isRemovable)).toBe(false);
        // Compared word by word, against the record's terms without the removable ones, until none
        // is left: a bare `include:` the user left joins the next word once an include between
        // them is gone (`include: x`, as Postal's check reads it), and when that word names a
        // removed domain, the joined include is one of them too.
        const words = (text: string) => text.split(" ").filter(Boolean);
        let expected = parseSpf(record)!;
        while (expected.terms.some(isRemovable)) {
          expected = parseSpf(
            [
              expected.version,
              ...expected.terms.filter((term) => !isRemovable(term)).map((t) => t.text),
            ].join(" "),
          )!;
        }
        expect(words(removed)).toEqual([
          expected.version,
          ...expected.terms.flatMap((term) => words(term.text)),
        ]);
        expect(removeSpfIncludes(removed, remove)).toBe(removed);
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * Zones of up to six names whose records include each other (loops too), some missing or doubled,
 * with includes of nothing and exists on the client's address (void lookups).
 */
const NAMES = [
  "n0.example.com",
  "n1.example.com",
  "n2.example.com",
  "n3.example.com",
  "n4.example.com",
  "n5.example.com",
];
const lookupTerm = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NAMES).map((name) => `include:${name}`) },
  { weight: 6, arbitrary: fc.constantFrom("a", "mx", "ptr", "ip4:192.0.2.1") },
  fc.constant("exists:%{i}.x.example.com"),
  fc.constantFrom("include:gone.example.com", "include:%{d}.m.example.com"),
);
const zoneRecord = fc
  .tuple(
    fc.array(lookupTerm, { maxLength: 5 }),
    fc.option(fc.constantFrom(...NAMES), { nil: undefined }),
    fc.boolean(),
  )
  .map(([terms, redirect, withAll]) =>
    ["v=spf1", ...terms, ...(redirect ? [`redirect=${redirect}`] : []), ...(withAll ? ["-all"] : [])].join(
      " ",
    ),
  );
/** Each name's TXT records: usually one SPF record, sometimes none (NXDOMAIN) or two. */
const zone = fc.array(
  fc.oneof(
    { weight: 12, arbitrary: zoneRecord.map((record) => [record]) },
    fc.constant([] as string[]),
    zoneRecord.map((record) => [record, record]),
  ),
  { minLength: NAMES.length, maxLength: NAMES.length },
);

/**
 * The verdict by plain recursion, as RFC 7208 reads these zones for a client no mechanism lists
 * (§4.6.4, §5.2, §6.1): every A, AAAA and MX query answers, so only an include or redirect of a
 * name without records, and an exists on the client's address, find nothing. Stops at the first
 * permerror; `total` is the lookups counted until then.
 */
function reference(
  records: Map<string, string[]>,
  root: string,
  domain: string,
): { kind?: string; total: number } {
  let total = 0;
  let voids = 0;
  type Stop = { kind?: string };
  const follow = (target: string, path: string[], none: string): Stop => {
    if (path.includes(target)) return { kind: "loop" };
    const found = records.get(target) ?? [];
    if (found.length === 0) return ++voids > 2 ? { kind: "void-limit" } : { kind: none };
    if (found.length > 1) return { kind: "multiple-records" };
    return visit(found[0], target, [...path, target]);
  };
  const visit = (text: string, current: string, path: string[]): Stop => {
    const terms = text.split(" ").slice(1);
    if (terms.includes(`include:${current}`)) return { kind: "loop" };
    for (const term of terms) {
      if (/^[-~?+]?all$/.test(term)) return {};
      if (term.startsWith("ip4:") || term.startsWith("redirect=")) continue;
      if (++total > SPF_LOOKUP_LIMIT) return { kind: "lookup-limit" };
      if (term.startsWith("exists:")) {
        if (++voids > 2) return { kind: "void-limit" };
      } else if (term.startsWith("include:")) {
        const stop = follow(term.slice(8).replace("%{d}", current), path, "include-none");
        if (stop.kind) return stop;
      }
    }
    const redirect = terms.find((term) => term.startsWith("redirect="));
    if (!redirect) return {};
    if (++total > SPF_LOOKUP_LIMIT) return { kind: "lookup-limit" };
    return follow(redirect.slice(9), path, "redirect-none");
  };
  return { ...visit(root, domain, [domain]), total };
}

describe("countSpfLookups over generated zones", () => {
  it("terminates on loops, resolves each name once and at most 10, and judges as plain recursion does", async () => {
    await fc.assert(
      fc.asyncProperty(zone, async (recordsByName) => {
        const records = new Map(NAMES.map((name, i) => [name, recordsByName[i]]));
        const asked: string[] = [];
        const resolver: SpfResolver = {
          txt: async (name) => {
            asked.push(name);
            const found = records.get(name);
            if (!found || found.length === 0)
              throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
            return found.map((text) => [text]);
          },
          a: async () => ["192.0.2.9"],
          aaaa: async () => ["2001:db8::9"],
          mx: async () => [{ exchange: "mx.example.com", priority: 10 }],
        };
        const root =
          records.get(NAMES[0])?.[0] ?? "v=spf1 include:n1.example.com include:n2.example.com ~all";
        const count = await countSpfLookups(root, resolver, { domain: NAMES[0] });

        expect(asked.length).toBeLessThanOrEqual(SPF_LOOKUP_LIMIT);
        expect(new Set(asked).size).toBe(asked.length);
        const sum = (nodes: SpfLookupNode[]): number =>
          nodes.reduce((total, node) => total + node.lookups, 0);
        const consistent = (node: SpfLookupNode): boolean =>
          node.lookups === 1 + sum(node.children ?? []) && (node.children ?? []).every(consistent);
        expect(count.total).toBe(sum(count.terms));
        expect(count.terms.every(consistent)).toBe(true);

        const expected = reference(records, root, NAMES[0]);
        expect(count.error?.kind).toBe(expected.kind);
        expect(count.verdict).toBe(expected.kind ? "permerror" : "ok");
        if (expected.kind === "lookup-limit") {
          expect(count.total).toBeGreaterThan(SPF_LOOKUP_LIMIT);
          expect(spfLookupProblem(count)).toMatch(/over the limit of 10/);
        } else {
          expect(count.total).toBe(expected.total);
          expect(spfLookupProblem(count) === undefined).toBe(expected.kind === undefined);
        }
      }),
      { numRuns: 300 },
    );
  });
});
