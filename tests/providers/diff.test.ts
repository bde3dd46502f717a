import fc from "fast-check";
import { UNKNOWN } from "../../provider/inputs";
import {
  changedFields,
  diffByRules,
  diffProperties,
  pickFields,
  sameValue,
} from "../../provider/dynamic/diff";
import { providerLoaderText } from "../../provider/dynamic/loader";
import { withoutStoredProvider } from "../../provider/dynamic/stored-provider";

/** The diff helpers the providers share, alone (the providers' own tests cover how they use them). */
describe("changedFields", () => {
  it("lists the fields whose values differ, in the order given", () => {
    const current = { name: "a", endpointId: 1, mode: "Endpoint", spamMode: "Mark" };
    const wanted = { name: "b", endpointId: 1, mode: "Hold", spamMode: "Mark" };
    expect(changedFields(current, wanted, ["spamMode", "mode", "endpointId", "name"])).toEqual([
      "mode",
      "name",
    ]);
  });

  it("compares deeply, absent equal to null, and only the fields given", () => {
    expect(changedFields({ checks: ["spf", "dkim"] }, { checks: ["spf", "dkim"] }, ["checks"])).toEqual([]);
    expect(changedFields({ checks: ["spf", "dkim"] }, { checks: ["dkim", "spf"] }, ["checks"])).toEqual([
      "checks",
    ]);
    expect(changedFields<"endpointId">({ endpointId: null }, {}, ["endpointId"])).toEqual([]);
    const [current, wanted] = [
      { name: "a", other: 1 },
      { name: "a", other: 2 },
    ];
    expect(changedFields(current, wanted, ["name"])).toEqual([]);
  });

  it("compares with the comparison given", () => {
    const sameIgnoringCase = (_field: string, a: unknown, b: unknown) =>
      String(a).toLowerCase() === String(b).toLowerCase();
    expect(changedFields({ name: "Mail" }, { name: "mail" }, ["name"], sameIgnoringCase)).toEqual([]);
  });

  it("is empty exactly when every field given is equal (any JSON values)", () => {
    const json = fc.jsonValue();
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom("a", "b", "c", "d"), json), json, (current, other) => {
        const fields = ["a", "b", "c", "d"] as const;
        expect(changedFields(current, { ...current }, fields)).toEqual([]);
        const wanted: Partial<Record<(typeof fields)[number], fc.JsonValue>> = { ...current, b: other };
        const changed = changedFields(current, wanted, fields);
        expect(changed).toEqual(sameValue(current.b, other) ? [] : ["b"]);
        // Every field reported is one whose value differs, and none is missing.
        expect(changed).toEqual(fields.filter((field) => !sameValue(current[field], wanted[field])));
      }),
    );
  });
});

describe("pickFields", () => {
  it("copies the fields given, and only those", () => {
    const source = { name: "a", endpointId: 2, mode: "Hold", adopt: false };
    expect(pickFields(source, ["endpointId", "mode"])).toEqual({ endpointId: 2, mode: "Hold" });
    expect(pickFields(source, [])).toEqual({});
  });
});

describe("diffProperties", () => {
  const rules = { replace: ["domainId"], update: ["name", "checks"] };

  it("reports changed properties, and those that replace", () => {
    const olds = { domainId: 1, name: "a", checks: ["spf"], __provider: "old text" };
    expect(diffProperties(olds, { ...olds, __provider: "new text" }, rules)).toEqual({
      changed: [],
      replaces: [],
    });
    expect(diffProperties(olds, { ...olds, domainId: 2, name: "b" }, rules)).toEqual({
      changed: ["domainId", "name"],
      replaces: ["domainId"],
    });
  });

  it("reports an unknown value (preview) as a change, even inside a list", () => {
    const olds = { domainId: 1, name: "a", checks: ["spf"] };
    expect(diffProperties(olds, { ...olds, domainId: UNKNOWN, checks: [UNKNOWN] }, rules)).toEqual({
      changed: ["domainId", "checks"],
      replaces: ["domainId"],
    });
  });
});

describe("diffByRules", () => {
  const loader = providerLoaderText("routeProvider");
  const olds = { domainId: 1, name: "a", __provider: loader };

  it("replaces, deleting first only when the rules say so", () => {
    const news = { ...olds, domainId: 2 };
    expect(diffByRules(olds, news, { replace: ["domainId"], update: ["name"] })).toEqual({
      changes: true,
      replaces: ["domainId"],
    });
    expect(
      diffByRules(olds, news, { replace: ["domainId"], update: ["name"], deleteBeforeReplace: true }),
    ).toEqual({ changes: true, replaces: ["domainId"], deleteBeforeReplace: true });
    expect(
      diffByRules(
        olds,
        { ...olds, name: "b" },
        { replace: ["domainId"], update: ["name"], deleteBeforeReplace: true },
      ),
    ).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("is a change when only a stored provider from before the loader must be rewritten", () => {
    const rules = { replace: ["domainId"], update: ["name"] };
    expect(diffByRules({ ...olds, __provider: "serialized code" }, olds, rules)).toEqual({
      changes: true,
      replaces: [],
    });
    expect(diffByRules(olds, olds, rules)).toEqual({ changes: false, replaces: [] });
  });
});

describe("withoutStoredProvider", () => {
  it("drops __provider and keeps the rest", () => {
    expect(withoutStoredProvider({ routeId: 1, adopt: false, __provider: "text" })).toEqual({
      routeId: 1,
      adopt: false,
    });
    const older: { routeId: number; __provider?: string } = { routeId: 1 };
    expect(withoutStoredProvider(older)).toEqual({ routeId: 1 });
  });
});
