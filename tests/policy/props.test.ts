import { plainProps, UNKNOWN } from "../../provider/policy/props";

// The proxy `@pulumi/policy` wraps properties in (its proxy.d.ts declares nothing, so untyped).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { unknownCheckingProxy } = require("@pulumi/policy/proxy") as {
  unknownCheckingProxy: <T>(value: T) => T;
};

/** Properties as the rules get them: copied past `@pulumi/policy`'s proxy, unknowns as UNKNOWN. */
describe("plainProps", () => {
  const STRING_UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

  it("copies through the proxy that throws on an unknown, each unknown as UNKNOWN", () => {
    const proxied = unknownCheckingProxy({
      name: "mail.example.com",
      content: STRING_UNKNOWN,
      dmarc: { policy: "reject", aggregateReports: ["mailto:a@example.com", STRING_UNKNOWN] },
      ttl: 300,
      mx: false,
      none: null,
    });
    expect(() => (proxied as { content: unknown }).content).toThrow();
    expect(plainProps(proxied)).toEqual({
      name: "mail.example.com",
      content: UNKNOWN,
      dmarc: { policy: "reject", aggregateReports: ["mailto:a@example.com", UNKNOWN] },
      ttl: 300,
      mx: false,
      none: null,
    });
  });

  it("keeps a property named __proto__ a property", () => {
    const plain = plainProps(JSON.parse('{"__proto__": {"polluted": true}, "name": "x"}'));
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.keys(plain)).toEqual(["__proto__", "name"]);
    expect((plain as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(plain, "__proto__")).toMatchObject({
      writable: true,
      configurable: true,
    });
  });

  it("answers {} for what is not an object", () => {
    expect(plainProps(undefined)).toEqual({});
    expect(plainProps(["a"])).toEqual({});
  });
});
