import { promises as fs } from "node:fs";
import * as path from "node:path";
import { TYPE_TOKENS } from "../../provider/resources/type-tokens";
import { POLICY_NAMES } from "../../provider/policy";
import { urnOf } from "../support/policy-analysis";
import {
  configure,
  configureStack,
  Empty,
  installPack,
  InstalledPack,
  LEVEL,
  Pack,
  proto,
  REPO,
  startPack as start,
  Struct,
} from "../support/policy-pack-host";

/**
 * The ready pack started as the engine starts it and spoken to over gRPC
 * (tests/support/policy-pack-host.ts): its description, a resource judged, and a policy config as
 * `--policy-pack-config` sets it. The corpus of postures is tests/policy/pack-corpus.test.ts.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
let installed: InstalledPack;

beforeAll(async () => {
  installed = await installPack();
});

afterAll(async () => {
  await installed.remove();
});

const startPack = (stack: string) => start(installed, stack);

function analyzeRequest(type: string, name: string, props: Record<string, unknown>, stack: string) {
  const request = new proto.AnalyzeRequest();
  request.setType(type);
  request.setName(name);
  request.setUrn(urnOf(type, name, undefined, stack));
  request.setProperties(Struct.fromJavaScript(props));
  request.setOptions(new proto.AnalyzerResourceOptions());
  return request;
}

const diagnostics = (response: any) =>
  response.getDiagnosticsList().map((d: any) => [d.getPolicyname(), d.getEnforcementlevel(), d.getMessage()]);

describe("the ready policy pack, as the engine runs it", () => {
  let pack: Pack | undefined;
  afterEach(() => pack?.stop());

  it("starts, describes its policies with their levels and config, and judges a resource", async () => {
    pack = await startPack("production");
    await configureStack(pack, "production");

    const info = await pack.call("getAnalyzerInfo", new Empty());
    expect(info.getName()).toBe("email-delivery-posture");
    expect(info.getVersion()).toBe(
      JSON.parse(await fs.readFile(path.join(REPO, "package.json"), "utf8")).version,
    );
    expect(info.getSupportsconfig()).toBe(true);
    const policies = info.getPoliciesList();
    expect(policies.map((p: any) => p.getName())).toEqual(POLICY_NAMES);
    const route = policies.find((p: any) => p.getName() === "email-route-mode");
    expect(route.getEnforcementlevel()).toBe(LEVEL.ADVISORY);
    expect(route.getConfigschema().getProperties().toJavaScript()).toMatchObject({
      productionStacks: { default: ["production", "prod"] },
      flaggedModes: { default: ["Hold", "Bounce", "Reject"] },
    });

    const held = analyzeRequest(
      TYPE_TOKENS.Route,
      "catch-all",
      { name: "*", mode: "Hold", endpointId: 1 },
      "production",
    );
    expect(diagnostics(await pack.call("analyze", held))).toEqual([
      [
        "email-route-mode",
        LEVEL.ADVISORY,
        expect.stringContaining('Route "catch-all" (*) sends its mail to Hold'),
      ],
    ]);
  }, 60_000);

  it("a policy config (as --policy-pack-config sets it): another level and other production stacks", async () => {
    pack = await startPack("prod-eu");
    await configureStack(pack, "prod-eu");
    const held = analyzeRequest(
      TYPE_TOKENS.Route,
      "catch-all",
      { name: "*", mode: "Hold", endpointId: 1 },
      "prod-eu",
    );
    // Without configuration "prod-eu" is not production.
    expect(diagnostics(await pack.call("analyze", held))).toEqual([]);

    // { "email-route-mode": { "enforcementLevel": "mandatory", "productionStacks": ["prod-*"] } }
    await configure(pack, {
      "email-route-mode": { level: "mandatory", properties: { productionStacks: ["prod-*"] } },
    });
    expect(diagnostics(await pack.call("analyze", held))).toEqual([
      ["email-route-mode", LEVEL.MANDATORY, expect.stringContaining('production stack "prod-eu"')],
    ]);

    // A stack policy over the stack's outputs, through the same process.
    const stackRequest = new proto.AnalyzeStackRequest();
    const domain = new proto.AnalyzerResource();
    domain.setType(TYPE_TOKENS.Domain);
    domain.setName("primary");
    domain.setUrn(urnOf(TYPE_TOKENS.Domain, "primary", undefined, "prod-eu"));
    domain.setProperties(
      Struct.fromJavaScript({
        name: "mail.example.com",
        mx: true,
        adopt: false,
        verification: {},
        cloudflare: { zoneId: "023e105f4ecef8ad9ca31a8372d0c353", ttl: 300, existingRecords: "fail" },
      }),
    );
    domain.setOptions(new proto.AnalyzerResourceOptions());
    stackRequest.setResourcesList([domain]);
    expect(diagnostics(await pack.call("analyzeStack", stackRequest))).toEqual([
      [
        "email-dmarc-published",
        LEVEL.ADVISORY,
        expect.stringContaining('Domain "primary" (mail.example.com) declares no DMARC policy in this stack'),
      ],
    ]);
  }, 60_000);
});
