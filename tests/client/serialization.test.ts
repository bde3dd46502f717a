import { execFile } from "node:child_process";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { createClient, isEmailApiError } from "../../provider/client";
import { useEmulator } from "../support/emulator";

/**
 * The client as a dynamic provider uses it: serialized by Pulumi's closure serializer (as
 * `pulumi.dynamic.Resource` does), evaluated in a fresh `node` process (as the provider host
 * does). Two providers serialized separately must still share one list request in that process.
 */
describe("client inside serialized providers", () => {
  const emulator = useEmulator();

  it("serializes, runs from its text in a fresh process, and shares lists across providers", async () => {
    // Connection settings are read when a method runs (as configure() will), never captured.
    const makeProvider = () => ({
      async listDomainCount(): Promise<number> {
        const client = createClient({
          baseUrl: process.env.EMAIL_DELIVERY_BASE_URL!,
          apiKey: process.env.EMAIL_DELIVERY_API_KEY,
        });
        return (await client.listDomains()).length;
      },
      /** An error raised inside the serialized code keeps its type, kind and message. */
      async missingDomainError(): Promise<unknown> {
        const client = createClient({
          baseUrl: process.env.EMAIL_DELIVERY_BASE_URL!,
          apiKey: process.env.EMAIL_DELIVERY_API_KEY,
        });
        const error = await client.checkDomain(987654).catch((e: unknown) => e);
        return isEmailApiError(error)
          ? {
              recognised: true,
              kind: error.kind,
              code: error.code,
              message: error.message,
              stack: error.stack,
            }
          : { recognised: false, error: String(error) };
      },
    });
    const first = makeProvider();
    const second = makeProvider();
    const texts = await Promise.all(
      [first, second].map(
        async (provider) =>
          (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text,
      ),
    );
    for (const text of texts) {
      expect(text).toContain('require("got")');
      expect(text).not.toContain(emulator().emailApi.apiKey);
    }

    const script = `
      const requireFromString = require("require-from-string");
      const texts = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
      const providers = texts.map((text) => requireFromString(text).handler());
      Promise.all(providers.flatMap((p) => Array.from({ length: 25 }, () => p.listDomainCount())))
        .then(async (counts) => console.log(JSON.stringify({ counts, error: await providers[0].missingDomainError() })))
        .catch((error) => { console.error(error.message); process.exit(1); });`;
    emulator().requests.clear();
    // Asynchronous: the emulator answers from this very process.
    const output = await new Promise<string>((resolve, reject) => {
      const child = execFile(
        process.execPath,
        ["-e", script],
        {
          cwd: path.resolve(__dirname, "../.."), // the provider host runs in the project folder
          env: {
            PATH: process.env.PATH,
            EMAIL_DELIVERY_BASE_URL: emulator().emailApi.url,
            EMAIL_DELIVERY_API_KEY: emulator().emailApi.apiKey,
          },
        },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      );
      child.stdin!.end(JSON.stringify(texts));
    });
    const { counts, error } = JSON.parse(output) as { counts: number[]; error: Record<string, unknown> };
    expect(counts).toHaveLength(50);
    expect(new Set(counts).size).toBe(1);
    expect(emulator().requests.count("domains/list")).toBe(1);
    expect(error).toMatchObject({
      recognised: true,
      kind: "not-found",
      code: "DomainNotFound",
      message:
        "domains/check failed (not-found): [DomainNotFound] No domain with id 987654 found on this server. (HTTP 200).",
    });
    expect(error.stack).toContain("EmailApiError: domains/check failed");
  });
});
