import { countSpfLookups, sameDomain, spfLookupProblem, spfUnresolvedWarning } from "../../provider/dns";
import { ALL_SETUPS, SPF_CORPUS } from "../fixtures/spf-corpus";
import { publishedNames, useCorpusDns } from "../support/spf-corpus-dns";

/**
 * The SPF corpus (tests/fixtures/spf-corpus) judged by the package through DNS: each setup's
 * records served by the emulator's DNS server on 127.0.0.1, its record judged by
 * `countSpfLookups` with node:dns, the verdict, the rule, the term, the count and the warnings
 * compared with what RFC 7208 gives. tests/dns/spf-pyspf.test.ts holds the same setups against pyspf.
 */

const dns = useCorpusDns();

it("has setups that do not share a name (each is judged on its own records)", () => {
  const owners = new Map<string, string>();
  for (const setup of ALL_SETUPS) {
    for (const name of new Set(publishedNames(setup).map((n) => n.toLowerCase()))) {
      const other = [...owners].find(([taken]) => sameDomain(taken, name));
      expect({ name, setup: setup.id, other: other?.[1] }).toEqual({
        name,
        setup: setup.id,
        other: undefined,
      });
      owners.set(name, setup.id);
    }
  }
  expect(new Set(ALL_SETUPS.map((setup) => setup.id)).size).toBe(ALL_SETUPS.length);
});

describe.each(Object.entries(SPF_CORPUS))("SPF corpus: %s", (_name, setups) => {
  it.each(setups.map((setup) => [setup.id, setup] as const))("%s", async (_id, setup) => {
    const count = await countSpfLookups(setup.record, dns().resolver, { domain: setup.domain });
    const { expect: wanted } = setup;
    expect({
      verdict: count.verdict,
      kind: count.error?.kind,
      term: count.error?.term,
      via: count.error?.via ?? [],
      family: count.error?.family,
      total: count.total,
      lowerBound: count.lowerBound,
    }).toEqual({
      verdict: wanted.verdict,
      kind: wanted.kind,
      term: wanted.term,
      via: wanted.via ?? [],
      family: wanted.family,
      total: wanted.total,
      lowerBound: wanted.lowerBound ?? false,
    });

    const problem = spfLookupProblem(count);
    if (wanted.verdict === "permerror") {
      // One sentence: the term, the rule with its RFC 7208 section, and what to do.
      expect(problem).toContain(
        wanted.kind === "lookup-limit" ? `at ${wanted.term}` : JSON.stringify(wanted.term),
      );
      expect(problem).toMatch(/\(RFC 7208 §\d/);
      expect(problem).toMatch(/; [^;]+\.$|\)\.$/);
      for (const step of wanted.via ?? []) expect(problem).toContain(step);
      if (wanted.family) expect(problem).toContain("for mail from IPv6 addresses");
    } else {
      expect(problem).toBeUndefined();
    }
    const warning = spfUnresolvedWarning(count) ?? "";
    if (wanted.warns) for (const text of wanted.warns) expect(warning).toContain(text);
    else expect(warning).toBe("");
  });
});
