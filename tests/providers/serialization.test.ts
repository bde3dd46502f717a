import { execFile } from "node:child_process";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { domainProvider, routeProvider, verificationProvider } from "../../provider/providers";
import { publishRecords } from "../support/cloudflare";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { configureFor } from "../support/providers";

/**
 * Each provider as the engine runs it: serialized as `pulumi.dynamic.Resource` serializes it,
 * then loaded from that text in a fresh `node` process in the project folder (as the provider
 * host loads it), where check and create run against the emulator.
 */
describe("providers serialized as Pulumi serializes them", () => {
  const emulator = useEmulator();

  const serialize = async (provider: pulumi.dynamic.ResourceProvider) => {
    const serialized = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
    return { text: serialized.text, containsSecrets: serialized.containsSecrets };
  };

  /**
   * Loads the text in a fresh process, checks `bad` (so every reason is built from the text too)
   * and `news`, creates from `news`, and returns the failures and what create returned.
   */
  const runInFreshProcess = (text: string, news: Record<string, unknown>, bad: Record<string, unknown>) =>
    new Promise<{ id: string; outs: Record<string, unknown>; badFailures: { property: string }[] }>(
      (resolve, reject) => {
        const script = `
        const provider = require("require-from-string")(require("node:fs").readFileSync(0, "utf8")).handler();
        const news = ${JSON.stringify(news)};
        (async () => {
          const badFailures = (await provider.check({}, ${JSON.stringify(bad)})).failures;
          const checked = await provider.check({}, news);
          if (checked.failures.length) throw new Error(JSON.stringify(checked.failures));
          const created = await provider.create({ ...checked.inputs, __provider: "text" });
          console.log(JSON.stringify({ ...created, badFailures }));
        })().catch((error) => { console.error(error.message); process.exit(1); });`;
        const child = execFile(
          process.execPath,
          ["-e", script],
          {
            cwd: path.resolve(__dirname, "../.."),
            env: {
              PATH: process.env.PATH,
              EMAIL_DELIVERY_BASE_URL: emulator().emailApi.url,
              EMAIL_DELIVERY_API_KEY: emulator().emailApi.apiKey,
            },
          },
          (error, stdout, stderr) =>
            error ? reject(new Error(stderr || error.message)) : resolve(JSON.parse(stdout)),
        );
        child.stdin!.end(text);
      },
    );

  beforeAll(() => configureFor(emulator(), [domainProvider, routeProvider, verificationProvider]));

  it("domainProvider: no key in the text, creates a domain from it", async () => {
    const { text, containsSecrets } = await serialize(domainProvider);
    expect(text).not.toContain(emulator().emailApi.apiKey);
    expect(containsSecrets).toBe(false);
    const name = uniqueDomain("serialized");
    const { id, outs, badFailures } = await runInFreshProcess(
      text,
      { name },
      { name: 7, adopt: "x", extra: 1 },
    );
    expect(badFailures.map((f) => f.property)).toEqual(["name", "adopt", "extra"]);
    expect(outs).toMatchObject({ name, domainId: Number(id) });
    expect(emulator().state.domains.some((d) => d.name === name)).toBe(true);
  });

  it("routeProvider: no key in the text, creates a route from it", async () => {
    const { text } = await serialize(routeProvider);
    expect(text).not.toContain(emulator().emailApi.apiKey);
    const { domain } = await clientFor(emulator()).createDomain(uniqueDomain("serialized"));
    const { outs, badFailures } = await runInFreshProcess(
      text,
      { name: "inbox", domainId: domain.id, endpointId: 2 },
      { name: "A@b", domainId: "1", endpointId: -2, mode: "x", spamMode: 3, adopt: 1 },
    );
    expect(badFailures.map((f) => f.property)).toEqual([
      "name",
      "domainId",
      "endpointId",
      "mode",
      "spamMode",
      "adopt",
    ]);
    expect(outs).toMatchObject({
      name: "inbox",
      domainId: domain.id,
      endpointId: 2,
      mode: "Endpoint",
      spamMode: "Mark",
    });
  });

  it("verificationProvider: no key in the text, verifies a domain from it", async () => {
    const { text } = await serialize(verificationProvider);
    expect(text).not.toContain(emulator().emailApi.apiKey);
    const { domain, dnsRecords } = await clientFor(emulator()).createDomain(uniqueDomain("serialized"));
    await publishRecords(emulator(), dnsRecords!);
    const { outs, badFailures } = await runInFreshProcess(
      text,
      { domainId: domain.id, timeoutSeconds: 10, pollIntervalSeconds: 1 },
      { domainId: 1.5, checks: ["nope"], timeoutSeconds: "x", pollIntervalSeconds: 0 },
    );
    expect(badFailures.map((f) => f.property)).toEqual([
      "domainId",
      "checks",
      "timeoutSeconds",
      "pollIntervalSeconds",
    ]);
    expect(outs).toMatchObject({
      verified: true,
      spfStatus: "OK",
      dkimStatus: "OK",
      mxStatus: "OK",
      returnPathStatus: "OK",
    });
  });
});
