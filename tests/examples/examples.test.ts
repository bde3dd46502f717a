import { readFileSync } from "node:fs";
import * as path from "node:path";
import { load } from "js-yaml";
import type { Emulator } from "../../emulator";
import { startEmulator } from "../../emulator";
import { useEmulator } from "../support/emulator";
import { DNS_RECORD_TYPE, runProgram } from "../support/live-mocks";

/**
 * The examples users copy, run as Pulumi would run them (their dynamic resources executed through
 * their providers, DnsRecords written to the Cloudflare stand-in) against the emulator. Types are
 * checked by `npm test` too (tsc over examples/).
 */
const EXAMPLES = path.resolve(__dirname, "../../examples");
const VERIFICATION = "email-delivery:DomainVerification";

/**
 * Runs an example's index.ts afresh (modules are cached per test file otherwise). Not
 * `isolateModules`: Pulumi's closure serializer finds modules through `require.cache`, which an
 * isolated registry is not part of.
 */
const example = (name: string) => () => {
  jest.resetModules();
  // A program runs when it is loaded, so it is required inside the mocked run.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(EXAMPLES, name)) as Record<string, unknown>;
};

/** A stack file's config, as `pulumi` would read it. */
function stackConfig(example: string, stack: string): Record<string, string> {
  const read = (file: string) =>
    ((load(readFileSync(path.join(EXAMPLES, example, file), "utf8")) as { config?: Record<string, unknown> })
      ?.config ?? {}) as Record<string, unknown>;
  const merged = { ...read("Pulumi.yaml"), ...read(`Pulumi.${stack}.yaml`) };
  return Object.fromEntries(
    Object.entries(merged).map(([key, value]) => [
      key,
      typeof value === "string" ? value : JSON.stringify(value),
    ]),
  );
}

describe("examples/basic", () => {
  const emulator = useEmulator();

  it("creates the domain, publishes and verifies its records, and creates both routes", async () => {
    const run = await runProgram(example("basic"), {
      mode: "live",
      emulator: emulator(),
      project: "email-delivery-basic",
      config: {
        "email-delivery-basic:domain": "mail.example.com",
        "email-delivery-basic:cloudflareZoneId": emulator().cloudflare.zones[0].id,
        "email-delivery-basic:endpointId": String(emulator().state.endpoints[0].id),
        "email-delivery-basic:verifyTimeoutSeconds": "20",
      },
    });
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      domainName: "mail.example.com",
      verified: true,
      checks: { spf: "OK", dkim: "OK", mx: "OK", returnPath: "OK" },
      routes: [
        { address: "support@", mode: "Endpoint", spamMode: "Quarantine" },
        { address: "*@", mode: "Hold", spamMode: "Mark" },
      ],
    });
    expect(run.ofType(DNS_RECORD_TYPE)).toHaveLength(5);
    expect(
      emulator()
        .state.routes.map((r) => r.name)
        .sort(),
    ).toEqual(["*", "support"]);
  });
});

describe("examples/stacks", () => {
  let staging: Emulator;
  let production: Emulator;
  beforeAll(async () => {
    [staging, production] = await Promise.all([startEmulator(), startEmulator()]);
  });
  afterAll(() => Promise.all([staging?.stop(), production?.stop()]));

  /** The stack file's config, pointed at one emulator instead of the real service. */
  const configFor = (stack: string, emulator: Emulator) => ({
    ...stackConfig("stacks", stack),
    "emailDelivery:baseUrl": emulator.emailApi.url,
    "email-delivery-stacks:cloudflareZoneId": emulator.cloudflare.zones[0].id,
    "email-delivery-stacks:endpointId": String(emulator.state.endpoints[0].id),
  });

  it("staging: its own service, the staging subdomain, waiting for SPF and DKIM only", async () => {
    const run = await runProgram(example("stacks"), {
      mode: "live",
      emulator: staging,
      project: "email-delivery-stacks",
      stack: "staging",
      config: configFor("staging", staging),
    });
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      stack: "staging",
      mailDomain: "staging.mail.example.com",
      verified: true,
    });
    expect(run.ofType(VERIFICATION)[0].inputs).toMatchObject({
      checks: ["spf", "dkim"],
      timeoutSeconds: 300,
    });
    expect(staging.state.domains.map((d) => d.name)).toEqual(["staging.mail.example.com"]);
    expect(production.state.domains).toEqual([]);
  });

  it("production: its own service, the base domain, waiting for all four checks", async () => {
    const run = await runProgram(example("stacks"), {
      mode: "live",
      emulator: production,
      project: "email-delivery-stacks",
      stack: "production",
      config: configFor("production", production),
    });
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({
      stack: "production",
      mailDomain: "mail.example.com",
      verified: true,
      checks: { spf: "OK", dkim: "OK", mx: "OK", returnPath: "OK" },
    });
    expect(run.ofType(VERIFICATION)[0].inputs).toMatchObject({
      checks: ["spf", "dkim", "mx", "returnPath"],
      timeoutSeconds: 900,
    });
    expect(production.state.domains.map((d) => d.name)).toEqual(["mail.example.com"]);
  });
});
