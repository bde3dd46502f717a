import fc from "fast-check";
import { domainToASCII, domainToUnicode } from "node:url";
import type * as pulumi from "@pulumi/pulumi";
import { domainProvider, routeProvider, verificationProvider } from "../../provider/dynamic";
import { UNKNOWN } from "../../provider/inputs";
import { useEmulator } from "../support/emulator";
import { configureFor } from "../support/providers";

/**
 * `check()` of each provider over generated inputs (issue 5 §3): it never throws, refuses exactly
 * the properties an independent oracle finds invalid (one failure per bad property, named), fills
 * defaults and passes valid and unknown values through, and sends nothing to the service.
 *
 * The oracles below are written from the rules (the Args' JSDoc, provider/inputs) as plain
 * predicates; they do not call the provider's own rule functions.
 */

type Props = Record<string, unknown>;

// ---- oracles ------------------------------------------------------------------------------------

const absent = (value: unknown) => value === undefined || value === null;

/**
 * Lowercase DNS name: 2+ labels of a-z 0-9 -, 1-63 each, no edge hyphen, ≤ 253, TLD not numeric;
 * a label starting `xn--` must be punycode that IDNA decodes to a name encoding back to the same
 * label (the rule names Node's IDNA, `node:url`, as the judge of that).
 */
function validDomainName(value: unknown): boolean {
  if (typeof value !== "string" || value.length === 0 || value.length > 253) return false;
  const labels = value.split(".");
  return (
    labels.length >= 2 &&
    labels.every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label)) &&
    labels.every((label) => !label.startsWith("xn--") || domainToASCII(domainToUnicode(label)) === label) &&
    !/^[0-9]+$/.test(labels[labels.length - 1])
  );
}

/** A local part (lowercase a-z 0-9 . -, 1-255 characters), or `*`, or `__returnpath__`. */
function validRouteName(value: unknown): boolean {
  if (value === "*" || value === "__returnpath__") return true;
  return typeof value === "string" && /^[a-z0-9.-]{1,255}$/.test(value);
}

/** The service's ids: a JS number that is a whole, positive, exactly representable integer. */
function validId(value: unknown): boolean {
  return (
    typeof value === "number" && Number.isInteger(value) && value > 0 && value <= Number.MAX_SAFE_INTEGER
  );
}

const oneOf =
  (...allowed: string[]) =>
  (value: unknown) =>
    typeof value === "string" && allowed.includes(value);

const isBoolean = (value: unknown) => value === true || value === false;

const seconds = (min: number, max: number) => (value: unknown) =>
  typeof value === "number" && !Number.isNaN(value) && value >= min && value <= max;

const CHECKS = ["spf", "dkim", "mx", "returnPath"];

/** A non-empty list of check names, none twice; an element unknown at preview is allowed (any number of times). */
function validChecks(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  const known = value.filter((item) => item !== UNKNOWN);
  return known.every((item) => CHECKS.includes(item as string)) && new Set(known).size === known.length;
}

interface PropertyOracle {
  valid: (value: unknown) => boolean;
  required?: boolean;
  default?: unknown;
}

interface Expectation {
  invalid: string[];
  inputs: Props;
}

/** What check must answer for `news`: the invalid properties (sorted) and the checked inputs. */
function expected(news: Props, oracles: Record<string, PropertyOracle>): Expectation {
  const invalid: string[] = [];
  const inputs: Props = {};
  for (const [property, oracle] of Object.entries(oracles)) {
    const value = Object.hasOwn(news, property) ? news[property] : undefined;
    if (absent(value)) {
      if (oracle.default !== undefined) inputs[property] = oracle.default;
      else if (oracle.required) invalid.push(property);
    } else if (value === UNKNOWN || oracle.valid(value)) {
      inputs[property] = value;
    } else {
      invalid.push(property);
    }
  }
  for (const property of Object.keys(news)) {
    if (property !== "__provider" && !Object.hasOwn(oracles, property)) invalid.push(property);
  }
  return { invalid: invalid.sort(), inputs };
}

const DOMAIN: Record<string, PropertyOracle> = {
  name: { valid: validDomainName, required: true },
  adopt: { valid: isBoolean, default: false },
};

const ROUTE: Record<string, PropertyOracle> = {
  name: { valid: validRouteName, required: true },
  domainId: { valid: validId, required: true },
  endpointId: { valid: validId, required: true },
  mode: { valid: oneOf("Endpoint", "Bounce", "Hold", "Reject"), default: "Endpoint" },
  spamMode: { valid: oneOf("Mark", "Quarantine", "Fail"), default: "Mark" },
  adopt: { valid: isBoolean, default: false },
};

const VERIFICATION: Record<string, PropertyOracle> = {
  domainId: { valid: validId, required: true },
  checks: { valid: validChecks, default: CHECKS },
  timeoutSeconds: { valid: seconds(1, 7200), default: 600 },
  pollIntervalSeconds: { valid: seconds(1, 300), default: 5 },
  // Its default depends on pollIntervalSeconds: filled in by expectedVerification.
  maxPollIntervalSeconds: { valid: seconds(1, 300) },
  whenReceiversReject: { valid: (value) => value === "fail" || value === "warn", default: "fail" },
};

/**
 * The verification's rules across properties (provider/inputs/verification-inputs.ts), applied
 * when the values involved are known numbers (given or defaulted):
 * - the poll interval must not exceed the timeout; this applies to the defaulted poll interval
 *   too: `timeoutSeconds: 3` alone is refused;
 * - a given maxPollIntervalSeconds must not be shorter than the poll interval;
 * - maxPollIntervalSeconds defaults to 5, or to the poll interval when that is longer (unknown
 *   when the poll interval is).
 */
function expectedVerification(news: Props): Expectation {
  const result = expected(news, VERIFICATION);
  const { timeoutSeconds, pollIntervalSeconds, maxPollIntervalSeconds } = result.inputs;
  if (
    typeof timeoutSeconds === "number" &&
    typeof pollIntervalSeconds === "number" &&
    pollIntervalSeconds > timeoutSeconds
  ) {
    result.invalid = [...result.invalid, "pollIntervalSeconds"].sort();
  }
  if (
    typeof maxPollIntervalSeconds === "number" &&
    typeof pollIntervalSeconds === "number" &&
    maxPollIntervalSeconds < pollIntervalSeconds
  ) {
    result.invalid = [...result.invalid, "maxPollIntervalSeconds"].sort();
  }
  if (absent(news.maxPollIntervalSeconds)) {
    result.inputs.maxPollIntervalSeconds =
      pollIntervalSeconds === UNKNOWN
        ? UNKNOWN
        : Math.max(5, typeof pollIntervalSeconds === "number" ? pollIntervalSeconds : 5);
  }
  return result;
}

// ---- generators ---------------------------------------------------------------------------------

/** Values of every JSON-ish type, huge and unicode strings, the UNKNOWN sentinel and near-misses of it. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 10 }),
  fc.nat(4000).map((n) => "x".repeat(n)),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double(),
  fc.bigInt({ min: -5n, max: 5n }),
  fc.boolean(),
  fc.constantFrom(null, undefined, [], {}, NaN, Infinity, -Infinity, -0, 0, ""),
  fc.constantFrom(UNKNOWN, UNKNOWN.toUpperCase(), ` ${UNKNOWN}`, [UNKNOWN], { value: UNKNOWN }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/);

/**
 * Punycode labels: international names encoded (bücher, münchen, 中文, ß, 💩, ü), and `xn--`
 * followed by anything, which often does not decode.
 */
const punycodeLabel = fc.oneof(
  fc.constantFrom("xn--bcher-kva", "xn--mnchen-3ya", "xn--fiq228c", "xn--zca", "xn--ls8h", "xn--tda"),
  fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?$/).map((rest) => `xn--${rest}`),
);

/** A name built by `labels.join(".")` of `count` labels of `size` characters, for the length limits. */
const longDomain = fc
  .tuple(fc.integer({ min: 50, max: 70 }), fc.integer({ min: 2, max: 5 }))
  .map(([size, count]) => [...Array.from({ length: count - 1 }, () => "a".repeat(size)), "com"].join("."));

const MUTATIONS = [
  "none",
  "upper",
  "trailing-dot",
  "space",
  "double-dot",
  "edge-hyphen",
  "underscore",
  "unicode",
  "numeric-tld",
  "single-label",
] as const;

function mutate(name: string, how: (typeof MUTATIONS)[number], at: number): string {
  const i = name.length === 0 ? 0 : at % name.length;
  switch (how) {
    case "none":
      return name;
    case "upper":
      return name.slice(0, i) + name.charAt(i).toUpperCase() + name.slice(i + 1);
    case "trailing-dot":
      return `${name}.`;
    case "space":
      return at % 2 ? ` ${name}` : `${name}\t`;
    case "double-dot":
      return name.replace(".", "..");
    case "edge-hyphen":
      return at % 2 ? `-${name}` : name.replace(".", "-.");
    case "underscore":
      return `_${name}`;
    case "unicode":
      return name.slice(0, i) + ["é", "ü", "ß", "Ω", "👍", "\u0000", "\u00a0"][at % 7] + name.slice(i);
    case "numeric-tld":
      return `${name}.${at % 1000}`;
    case "single-label":
      return name.replace(/\./g, "");
  }
}

const domainName: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.array(label, { minLength: 1, maxLength: 4 }), fc.constantFrom(...MUTATIONS), fc.nat())
      .map(([labels, how, at]) => mutate(labels.join("."), how, at)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.array(fc.oneof(label, punycodeLabel), { minLength: 1, maxLength: 3 }), label)
      .map(([labels, last]) => [...labels, last].join(".")),
  },
  fc.domain(),
  longDomain,
  fc.constantFrom(
    "",
    " ",
    ".",
    "a.b",
    "10.0.0.1",
    "xn--bcher-kva.example",
    "xn--zz.example.com",
    "1.example.2a",
    UNKNOWN,
  ),
  { weight: 2, arbitrary: junk },
);

const routeName: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9.-]{1,12}$/) },
  fc
    .tuple(fc.stringMatching(/^[a-z0-9.-]{1,12}$/), fc.constantFrom(...MUTATIONS), fc.nat())
    .map(([name, how, at]) => mutate(name, how, at)),
  fc.constantFrom("*", "__returnpath__", "**", "*.", "__ReturnPath__", "support@mail.example.com", "@"),
  fc.constantFrom("a".repeat(255), "a".repeat(256), "A".repeat(256), UNKNOWN),
  { weight: 2, arbitrary: junk },
);

const id: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -3, max: 100_000 }) },
  fc.double({ min: -10, max: 10 }),
  fc.constantFrom(
    0,
    -0,
    1.5,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
    2 ** 60,
    1e-9,
    "42",
    "1",
    42n,
    UNKNOWN,
  ),
  junk,
);

const enumValue = (values: string[]): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...values) },
    fc.constantFrom(...values).map((v) => v.toLowerCase()),
    fc.constantFrom(...values).map((v) => v.toUpperCase()),
    fc.constantFrom(...values).map((v) => ` ${v}`),
    fc.constantFrom("Forward", "Drop", "Accept", "Hold ", UNKNOWN),
    junk,
  );

const adopt: fc.Arbitrary<unknown> = fc.oneof(
  fc.boolean(),
  fc.constantFrom("true", "false", 0, 1, UNKNOWN),
  junk,
);

const checks: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(
      fc.constantFrom<unknown>(
        ...CHECKS,
        ...CHECKS,
        "SPF",
        "return_path",
        "returnpath",
        "dmarc",
        UNKNOWN,
        1,
        null,
      ),
      { maxLength: 6 },
    ),
  },
  fc.shuffledSubarray(CHECKS, { minLength: 1 }),
  fc.constantFrom("spf", "spf,dkim", UNKNOWN),
  junk,
);

const secondsValue = (max: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: -2, max: max + 2 }) },
    fc.double({ min: -1, max: max + 1 }),
    fc.constantFrom(0, 0.5, 1, 1.5, max, max + 0.001, NaN, Infinity, -Infinity, "5", UNKNOWN),
    junk,
  );

/** Properties that are not inputs: typos, casing, other resources' inputs, prototype names. */
const extraKey = fc.oneof(
  fc.constantFrom(
    "nmae",
    "Name",
    "spam_mode",
    "domain_id",
    "zone",
    "cloudflare",
    "verification",
    "constructor",
    "toString",
    "__proto__",
    "",
  ),
  fc.string({ maxLength: 8 }),
);

/** Values each rule accepts (or the sentinel), so that generated inputs are often wholly valid. */
const good = {
  domainName: fc.oneof(
    fc.array(label, { minLength: 2, maxLength: 4 }).map((labels) => labels.join(".")),
    fc.domain(),
  ),
  routeName: fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9.-]{1,12}$/) },
    fc.constantFrom("*", "__returnpath__", UNKNOWN),
  ),
  id: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 1_000_000 }) },
    fc.constantFrom(Number.MAX_SAFE_INTEGER, UNKNOWN),
  ),
  mode: fc.constantFrom("Endpoint", "Bounce", "Hold", "Reject", UNKNOWN),
  spamMode: fc.constantFrom("Mark", "Quarantine", "Fail", UNKNOWN),
  adopt: fc.boolean(),
  checks: fc.oneof(
    { weight: 4, arbitrary: fc.shuffledSubarray(CHECKS, { minLength: 1 }) },
    fc.constantFrom(UNKNOWN, [UNKNOWN], [UNKNOWN, UNKNOWN, "spf"]),
  ),
  timeoutSeconds: fc.oneof(
    fc.integer({ min: 5, max: 7200 }),
    fc.double({ min: 5, max: 7200, noNaN: true }),
    fc.constant(UNKNOWN),
  ),
  pollIntervalSeconds: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.double({ min: 1, max: 300, noNaN: true })),
  maxPollIntervalSeconds: fc.oneof(
    fc.integer({ min: 5, max: 300 }),
    fc.double({ min: 1, max: 300, noNaN: true }),
    fc.constant(UNKNOWN),
  ),
};

/**
 * Inputs of one resource, half of them "mostly valid" (required properties present, each property
 * valid with a small chance of a bad value), half chaotic (each property present or missing, any
 * value; missing = the key is absent, null also counts as missing). Sometimes the serialized
 * provider, sometimes properties that are not inputs (defined as own properties, so a key such as
 * `__proto__` is one, as JSON.parse makes it).
 */
function newsOf(
  model: Record<string, { good: fc.Arbitrary<unknown>; any: fc.Arbitrary<unknown> }>,
  required: string[],
): fc.Arbitrary<Props> {
  const entries = Object.entries(model);
  const mostlyGood = fc.record(
    Object.fromEntries(
      entries.map(([key, { good, any }]) => [
        key,
        fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: any }),
      ]),
    ),
    { requiredKeys: required },
  );
  const chaotic = fc.record(Object.fromEntries(entries.map(([key, { any }]) => [key, any])), {
    requiredKeys: [],
  });
  return fc
    .tuple(
      fc.oneof(mostlyGood, chaotic),
      fc.option(fc.constantFrom("exports.handler = …", ""), { nil: undefined }),
      fc.oneof(
        { weight: 4, arbitrary: fc.constant([]) },
        fc.array(fc.tuple(extraKey, junk), { minLength: 1, maxLength: 2 }),
      ),
    )
    .map(([props, provider, extras]) => {
      const news: Props = { ...props };
      if (provider !== undefined) news.__provider = provider;
      for (const [key, value] of extras) {
        if (Object.hasOwn(model, key) || key === "__provider") continue;
        Object.defineProperty(news, key, { value, enumerable: true, writable: true, configurable: true });
      }
      return news;
    });
}

const domainNews = newsOf(
  { name: { good: good.domainName, any: domainName }, adopt: { good: good.adopt, any: adopt } },
  ["name"],
);
const routeNews = newsOf(
  {
    name: { good: good.routeName, any: routeName },
    domainId: { good: good.id, any: id },
    endpointId: { good: good.id, any: id },
    mode: { good: good.mode, any: enumValue(["Endpoint", "Bounce", "Hold", "Reject"]) },
    spamMode: { good: good.spamMode, any: enumValue(["Mark", "Quarantine", "Fail"]) },
    adopt: { good: good.adopt, any: adopt },
  },
  ["name", "domainId", "endpointId"],
);
const verificationNews = newsOf(
  {
    domainId: { good: good.id, any: id },
    checks: { good: good.checks, any: checks },
    timeoutSeconds: { good: good.timeoutSeconds, any: secondsValue(7200) },
    pollIntervalSeconds: { good: good.pollIntervalSeconds, any: secondsValue(300) },
    maxPollIntervalSeconds: { good: good.maxPollIntervalSeconds, any: secondsValue(300) },
    whenReceiversReject: {
      good: fc.constantFrom("fail", "warn"),
      any: fc.oneof(fc.constantFrom("fail", "warn", "Fail", "ignore"), junk),
    },
  },
  ["domainId"],
);

// ---- the properties -----------------------------------------------------------------------------

const emulator = useEmulator({ dns: { dkimKeyBits: 1024 } });
const providers = { domain: domainProvider, route: routeProvider, verification: verificationProvider };

beforeAll(async () => {
  // Configured for a reachable service: a check that sent anything would be seen in the log.
  await configureFor(emulator(), Object.values(providers));
  emulator().requests.clear();
});

/** What check answered, or the error it threw (as a value, so the property can report it). */
async function runCheck(
  provider: pulumi.dynamic.ResourceProvider,
  news: Props,
): Promise<{ threw?: unknown; inputs?: Props; failures: { property: string; reason: string }[] }> {
  try {
    const result = await provider.check!({}, news);
    return {
      inputs: result.inputs,
      failures: (result.failures ?? []) as { property: string; reason: string }[],
    };
  } catch (error) {
    return { threw: error, failures: [] };
  }
}

const counts = {
  domain: { valid: 0, invalid: 0 },
  route: { valid: 0, invalid: 0 },
  verification: { valid: 0, invalid: 0 },
};

describe.each([
  ["domain", domainNews, (news: Props) => expected(news, DOMAIN)],
  ["route", routeNews, (news: Props) => expected(news, ROUTE)],
  ["verification", verificationNews, expectedVerification],
] as const)("%s check() over generated inputs", (kind, arbitrary, oracle) => {
  it("never throws, refuses exactly the invalid properties (each named once, with a reason), passes the rest through", async () => {
    await fc.assert(
      fc.asyncProperty(arbitrary, async (news) => {
        const answer = await runCheck(providers[kind], news);
        expect(answer.threw).toBeUndefined();
        const want = oracle(news);
        counts[kind][want.invalid.length === 0 ? "valid" : "invalid"] += 1;

        expect(answer.failures.map((failure) => failure.property).sort()).toEqual(want.invalid);
        for (const failure of answer.failures) {
          expect(typeof failure.reason).toBe("string");
          expect(failure.reason.length).toBeGreaterThan(0);
          // The reason is about the value, not a stack or an internal error.
          expect(failure.reason).not.toMatch(/\bat \S+ \(|TypeError|undefined is not/);
        }
        // Every valid, unknown or defaulted property comes through unchanged; nothing else does.
        expect(answer.inputs).toEqual(want.inputs);
      }),
      { numRuns: 200 },
    );
  });
});

it("generated inputs covered both accepted and refused cases for every provider", () => {
  for (const [kind, seen] of Object.entries(counts)) {
    expect([kind, seen.valid > 10, seen.invalid > 10]).toEqual([kind, true, true]);
  }
});

it("no check sent anything to the service: the emulator's request log is empty", () => {
  expect(emulator().requests.all()).toEqual([]);
});

describe("oracle sanity (the oracles agree with the README's examples)", () => {
  it.each([
    ["mail.example.com", true],
    ["Mail.Example.com", false],
    ["mail.example.com.", false],
    ["localhost", false],
    ["mail..example.com", false],
    ["-mail.example.com", false],
    ["mail_x.example.com", false],
    ["10.0.0.1", false],
    ["", false],
    [`${"a".repeat(63)}.com`, true],
    [`${"a".repeat(64)}.com`, false],
    ["xn--bcher-kva.example.com", true],
    ["xn--zz.example.com", false],
    ["mail.xn--abc.example", false],
  ])("domain name %j valid: %s", (name, valid) => {
    expect(validDomainName(name)).toBe(valid);
  });

  it("a maxPollIntervalSeconds below the (default) poll interval is refused on maxPollIntervalSeconds", async () => {
    const answer = await runCheck(verificationProvider, { domainId: 1, maxPollIntervalSeconds: 3 });
    expect(answer.failures).toEqual([{ property: "maxPollIntervalSeconds", reason: expect.any(String) }]);
    expect(expectedVerification({ domainId: 1, maxPollIntervalSeconds: 3 }).invalid).toEqual([
      "maxPollIntervalSeconds",
    ]);
  });

  it("timeoutSeconds below the default poll interval is refused on pollIntervalSeconds", async () => {
    const answer = await runCheck(verificationProvider, { domainId: 1, timeoutSeconds: 3 });
    expect(answer.failures).toEqual([{ property: "pollIntervalSeconds", reason: expect.any(String) }]);
    expect(expectedVerification({ domainId: 1, timeoutSeconds: 3 }).invalid).toEqual(["pollIntervalSeconds"]);
  });
});
