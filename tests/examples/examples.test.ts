import { readFileSync } from "node:fs";
import * as path from "node:path";
import { load } from "js-yaml";
import type { Emulator } from "../../emulator";
import { startEmulator } from "../../emulator";
import { runUnderMocks } from "../../packaging/program-under-mocks";
import { providerLoaderText } from "../../provider/dynamic/loader";
import { useEmulator } from "../support/emulator";
import { CLAIMED_RECORD_TYPE, runProgram } from "../../testing";

/**
 * The examples users copy, run as Pulumi would run them (their dynamic resources executed through
 * their providers, DnsRecords written to the Cloudflare stand-in) against the emulator. Types are
 * checked by `npm test` too (tsc over examples/).
 */
const ROOT = path.resolve(__dirname, "../..");
const EXAMPLES = path.join(ROOT, "examples");
const VERIFICATION = "email-delivery:DomainVerification";

/**
 * Runs a program afresh (modules are cached per test file otherwise). Not
 * `isolateModules`: Pulumi's closure serializer finds modules through `require.cache`, which an
 * isolated registry is not part of.
 */
const program = (file: string) => () => {
  jest.resetModules();
  // A program runs when it is loaded, so it is required inside the mocked run.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(file) as Record<string, unknown>;
};
const example = (name: string) => program(path.join(EXAMPLES, name));

/** A project's settings file, parsed. */
const yamlFile = (file: string) => load(readFileSync(file, "utf8")) as Record<string, unknown>;

/** A stack file's config, as `pulumi` would read it (project config, then the stack's). */
function stackConfig(projectDir: string, stack: string): Record<string, string> {
  const read = (file: string) =>
    ((yamlFile(path.join(projectDir, file)) as { config?: Record<string, unknown> })?.config ?? {}) as Record<
      string,
      unknown
    >;
  const merged = { ...read("Pulumi.yaml"), ...read(`Pulumi.${stack}.yaml`) };
  return Object.fromEntries(
    Object.entries(merged).map(([key, value]) => [
      key,
      typeof value === "string" ? value : JSON.stringify(value),
    ]),
  );
}

describe("the root project", () => {
  const emulator = useEmulator();

  it("names a program file (a folder would make Pulumi load the package's entry point instead)", () => {
    const main = yamlFile(path.join(ROOT, "Pulumi.yaml")).main as string;
    expect(main).toMatch(/\.ts$/);
    expect(readFileSync(path.join(ROOT, main), "utf8")).toContain('export * from "./examples/basic"');
  });

  it("runs the basic example with the local stack's settings, which match the emulator", async () => {
    const local = stackConfig(ROOT, "local");
    // The emulator derives a zone's id from its name: the committed id is the one it serves.
    expect(local["email-delivery:cloudflareZoneId"]).toBe(emulator().cloudflare.zones[0].id);
    const run = await runProgram(program(path.join(ROOT, "index.ts")), {
      mode: "live",
      emulator: emulator(),
      project: "email-delivery",
      stack: "local",
      // The emulator's ports here, where the stack names its default ones.
      config: {
        ...local,
        "emailDelivery:baseUrl": emulator().emailApi.url,
        "emailDelivery:dnsResolver": emulator().dns.address,
        "emailDelivery:dnsNameservers": emulator().dns.address,
        // The Domain's records are written by the package's provider, with this setting.
        "cloudflare:baseUrl": emulator().cloudflare.url,
      },
    });
    expect(run.errors).toEqual([]);
    expect(run.outputs).toMatchObject({ domainName: "mail.example.com", verified: true });
  });

  it("runs as Pulumi runs it (ts-node, its tsconfig), using this package by name, and stores the loaders", async () => {
    const { registrations, warnings } = await runUnderMocks(ROOT, {
      config: stackConfig(ROOT, "local"),
      projectName: "email-delivery",
    });
    // The provider host, started here too, loads this very package (its build): nothing to warn of.
    expect(warnings).toEqual([]);
    expect(
      registrations
        .filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"))
        .map((r) => [r.type.split(":").pop(), r.inputs.__provider]),
    ).toEqual([
      ["Domain", providerLoaderText("domainProvider")],
      ["DomainVerification", providerLoaderText("verificationProvider")],
      ["Route", providerLoaderText("routeProvider")],
      ["Route", providerLoaderText("routeProvider")],
    ]);
  }, 120_000);
});

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
    expect(run.ofType(CLAIMED_RECORD_TYPE)).toHaveLength(5);
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
    ...stackConfig(path.join(EXAMPLES, "stacks"), stack),
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
