import { ownRecordPurpose, recordFacts, TYPE_TOKENS } from "../../provider/policy/resources";

/** Which records a rule takes as a Domain's own, from the parent's URN and the record's name alone. */
describe("ownRecordPurpose", () => {
  const domain = (name: string, parents = "") =>
    `urn:pulumi:production::email-delivery::${parents}${TYPE_TOKENS.Domain}::${name}`;

  it.each([
    ["primary-spf", "spf"],
    ["primary-dkim", "dkim"],
    ["primary-return-path", "return-path"],
    ["primary-mx-0", "mx"],
    ["primary-mx-12", "mx"],
    ["primary-dmarc", "dmarc"],
  ])("%s under Domain primary is its own %s record", (name, purpose) => {
    expect(ownRecordPurpose(domain("primary"), name)).toBe(purpose);
  });

  it.each([
    ["a record the user parents to the Domain", domain("primary"), "primary-extra"],
    ["another Domain's name", domain("primary"), "secondary-spf"],
    ["no parent", undefined, "primary-spf"],
    [
      "a parent that is not a Domain",
      "urn:pulumi:production::email-delivery::my:index:Thing::primary",
      "primary-spf",
    ],
    ["a purpose with more after it", domain("primary"), "primary-spf-old"],
  ])("%s is not", (_, parent, name) => {
    expect(ownRecordPurpose(parent, name)).toBeUndefined();
  });

  it("reads a Domain nested in a component, and a name that holds `::`", () => {
    expect(ownRecordPurpose(domain("primary", "my:index:Mail$"), "primary-dkim")).toBe("dkim");
    expect(ownRecordPurpose(domain("eu::primary"), "eu::primary-mx-1")).toBe("mx");
  });
});

describe("recordFacts", () => {
  it("does not read the properties of a resource that is not a record", () => {
    const resource = {
      type: TYPE_TOKENS.Route,
      name: "support",
      get props(): Record<string, unknown> {
        throw new Error("read");
      },
    };
    expect(recordFacts(resource)).toBeUndefined();
  });

  it("reads a record's", () => {
    const props = { type: "txt", name: "Example.com.", content: '"v=spf1 -all"', ttl: 300, zoneId: "z" };
    expect(recordFacts({ type: TYPE_TOKENS.DnsRecord, name: "apex-spf", props })).toMatchObject({
      kind: "DnsRecord",
      type: "TXT",
      name: "example.com",
      ttl: 300,
    });
  });
});
