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

  /** Loads the text in a fresh process, runs check then create, and returns what create returned. */
  const runInFreshProcess = (text: string, news: Record<string, unknown>) =>
    new Promise<{ id: string; outs: Record<string, unknown> }>((resolve, reject) => {
      const script = `
        const provider = require("require-from-string")(require("node:fs").readFileSync(0, "utf8")).handler();
        const news = ${JSON.stringify(news)};
        (async () => {
          const checked = await provider.check({}, news);
          if (checked.failures.length) throw new Error(JSON.stringify(checked.failures));
          console.log(JSON.stringify(await provider.create({ ...checked.inputs, __provider: "text" })));
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
    });

  beforeAll(() => configureFor(emulator(), [domainProvider, routeProvider, verificationProvider]));

  it("domainProvider: no key in the text, creates a domain from it", async () => {
    const { text, containsSecrets } = await serialize(domainProvider);
    expect(text).not.toContain(emulator().emailApi.apiKey);
    expect(containsSecrets).toBe(false);
    const name = uniqueDomain("serialized");
    const { id, outs } = await runInFreshProcess(text, { name });
    expect(outs).toMatchObject({ name, domainId: Number(id) });
    expect(emulator().state.domains.some((d) => d.name === name)).toBe(true);
  });

  it("routeProvider: no key in the text, creates a route from it", async () => {
    const { text } = await serialize(routeProvider);
    expect(text).not.toContain(emulator().emailApi.apiKey);
    const { domain } = await clientFor(emulator()).createDomain(uniqueDomain("serialized"));
    const { outs } = await runInFreshProcess(text, { name: "inbox", domainId: domain.id, endpointId: 2 });
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
    const { outs } = await runInFreshProcess(text, {
      domainId: domain.id,
      timeoutSeconds: 10,
      pollIntervalSeconds: 1,
    });
    expect(outs).toMatchObject({
      verified: true,
      spfStatus: "OK",
      dkimStatus: "OK",
      mxStatus: "OK",
      returnPathStatus: "OK",
    });
  });
});
