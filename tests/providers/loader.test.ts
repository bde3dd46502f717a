import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  isProviderLoader,
  PROVIDERS_ENTRY_POINT,
  providerLoaderText,
  STORED_PROVIDERS,
  StoredProviderName,
  storedProviderOutdated,
} from "../../provider/dynamic/loader";
import { publishRecords } from "../support/cloudflare";
import { clientFor, uniqueDomain, useEmulator } from "../support/emulator";
import { SERIALIZED_BEFORE_THE_LOADER } from "../support/provider-host";

const REPO_ROOT = path.resolve(__dirname, "../..");
const NAMES = Object.keys(STORED_PROVIDERS) as StoredProviderName[];

/**
 * Loads `text` as the provider host does (require-from-string, then `handler()`) in a fresh `node`
 * process in `cwd`, with the emulator's connection settings in the environment, and runs `script`
 * (an async function body with `provider` in scope) there; resolves with what it prints as JSON.
 */
function inFreshProcess(
  text: string,
  script: string,
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<unknown> {
  const program = `
    const load = require("node:module").createRequire(${JSON.stringify(require.resolve("@pulumi/pulumi/cmd/dynamic-provider"))});
    (async () => {
      const provider = load("require-from-string")(require("node:fs").readFileSync(0, "utf8")).handler();
      ${script}
    })().catch((error) => { console.error(error.message); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ["-e", program],
      { cwd: options.cwd ?? REPO_ROOT, env: { PATH: process.env.PATH, ...options.env } },
      (error, stdout, stderr) =>
        error ? reject(new Error(stderr || error.message)) : resolve(JSON.parse(stdout)),
    );
    child.stdin!.end(text);
  });
}

describe("the stored provider text", () => {
  it.each(NAMES)("%s: a small constant text naming the entry point, with no path of this machine", (name) => {
    const text = providerLoaderText(name);
    expect(text).toBe(providerLoaderText(name));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
    expect(text).toContain(`"${PROVIDERS_ENTRY_POINT}"`);
    expect(text).toContain(`.${name};`);
    for (const machinePath of [REPO_ROOT, os.homedir(), os.tmpdir()]) expect(text).not.toContain(machinePath);
    expect(isProviderLoader(text)).toBe(true);
  });

  it("the entry point is the package's own name and an export of package.json", async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(REPO_ROOT, "package.json"), "utf8")) as {
      name: string;
      exports: Record<string, unknown>;
    };
    expect(PROVIDERS_ENTRY_POINT).toBe(`${manifest.name}/providers`);
    expect(manifest.exports["./providers"]).toEqual({
      types: "./dist/provider/providers-entry.d.ts",
      default: "./dist/provider/providers-entry.js",
    });
  });

  it("a stored provider is outdated only when it is serialized code and the program now stores a loader", () => {
    const loader = providerLoaderText("domainProvider");
    const serialized = SERIALIZED_BEFORE_THE_LOADER;
    expect(isProviderLoader(serialized)).toBe(false);
    expect(storedProviderOutdated({ __provider: serialized }, { __provider: loader })).toBe(true);
    expect(storedProviderOutdated({ __provider: loader }, { __provider: loader })).toBe(false);
    // A later loader version over an earlier one: both keep working, nothing to rewrite.
    expect(storedProviderOutdated({ __provider: loader }, { __provider: `${loader}\n// v2` })).toBe(false);
    // Two serialized texts: nothing here stores a loader, so nothing to rewrite.
    expect(storedProviderOutdated({ __provider: serialized }, { __provider: serialized })).toBe(false);
    expect(storedProviderOutdated({}, { __provider: loader })).toBe(false);
  });

  describe("loaded in a fresh process as the provider host loads it", () => {
    const emulator = useEmulator();
    const env = () => ({
      EMAIL_DELIVERY_BASE_URL: emulator().emailApi.url,
      EMAIL_DELIVERY_API_KEY: emulator().emailApi.apiKey,
    });
    /** check (bad inputs, so every reason comes from the loaded code), check, then create. */
    const checkAndCreate = (bad: object, news: object) => `
      const badFailures = (await provider.check({}, ${JSON.stringify(bad)})).failures;
      const checked = await provider.check({}, ${JSON.stringify(news)});
      if (checked.failures.length) throw new Error(JSON.stringify(checked.failures));
      const created = await provider.create({ ...checked.inputs, __provider: "text" });
      console.log(JSON.stringify({ ...created, badFailures }));`;

    it("domainProvider: checks and creates a domain", async () => {
      const name = uniqueDomain("loaded");
      const result = (await inFreshProcess(
        providerLoaderText("domainProvider"),
        checkAndCreate({ name: 7, adopt: "x", extra: 1 }, { name }),
        { env: env() },
      )) as { id: string; outs: Record<string, unknown>; badFailures: { property: string }[] };
      expect(result.badFailures.map((f) => f.property)).toEqual(["name", "adopt", "extra"]);
      expect(result.outs).toMatchObject({ name, domainId: Number(result.id) });
      expect(emulator().state.domains.some((d) => d.name === name)).toBe(true);
    });

    it("routeProvider: checks and creates a route", async () => {
      const { domain } = await clientFor(emulator()).createDomain(uniqueDomain("loaded"));
      const result = (await inFreshProcess(
        providerLoaderText("routeProvider"),
        checkAndCreate(
          { name: "A@b", domainId: "1", endpointId: -2, mode: "x", spamMode: 3, adopt: 1 },
          { name: "inbox", domainId: domain.id, endpointId: 2 },
        ),
        { env: env() },
      )) as { outs: Record<string, unknown>; badFailures: { property: string }[] };
      expect(result.badFailures.map((f) => f.property)).toEqual([
        "name",
        "domainId",
        "endpointId",
        "mode",
        "spamMode",
        "adopt",
      ]);
      expect(result.outs).toMatchObject({
        name: "inbox",
        domainId: domain.id,
        endpointId: 2,
        mode: "Endpoint",
      });
    });

    it("verificationProvider: checks and verifies a domain", async () => {
      const { domain, dnsRecords } = await clientFor(emulator()).createDomain(uniqueDomain("loaded"));
      await publishRecords(emulator(), dnsRecords!);
      const result = (await inFreshProcess(
        providerLoaderText("verificationProvider"),
        checkAndCreate(
          { domainId: 1.5, checks: ["nope"], timeoutSeconds: "x", pollIntervalSeconds: 0 },
          { domainId: domain.id, timeoutSeconds: 10, pollIntervalSeconds: 1 },
        ),
        { env: env() },
      )) as { outs: Record<string, unknown>; badFailures: { property: string }[] };
      expect(result.badFailures.map((f) => f.property)).toEqual([
        "domainId",
        "checks",
        "timeoutSeconds",
        "pollIntervalSeconds",
      ]);
      expect(result.outs).toMatchObject({
        verified: true,
        spfStatus: "OK",
        dkimStatus: "OK",
        mxStatus: "OK",
      });
    });
  });

  describe("where the package cannot be loaded", () => {
    let project: string;
    beforeEach(async () => {
      project = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-loader-"));
    });
    afterEach(() => fs.rm(project, { recursive: true, force: true }));

    /** A package of this name in the project whose `providers` entry point is `code` (none without it). */
    const installPackage = async (code?: string) => {
      const installed = path.join(project, "node_modules", "pulumi-email-delivery");
      await fs.mkdir(installed, { recursive: true });
      const exports = code === undefined ? { ".": "./index.js" } : { "./providers": "./providers.js" };
      await fs.writeFile(
        path.join(installed, "package.json"),
        JSON.stringify({ name: "pulumi-email-delivery", exports }),
      );
      await fs.writeFile(path.join(installed, code === undefined ? "index.js" : "providers.js"), code ?? "");
    };

    it("not installed in the project: says which package, where it looked, and how to install it", async () => {
      const failure = inFreshProcess(providerLoaderText("routeProvider"), "", { cwd: project });
      await expect(failure).rejects.toThrow(
        `This stack's email-delivery:Route resources are run by the package pulumi-email-delivery, which could not be loaded from ${project}: ` +
          "Cannot find module 'pulumi-email-delivery/providers'",
      );
      await expect(failure).rejects.toThrow(
        "Install it in the Pulumi project (npm install pulumi-email-delivery)",
      );
    });

    it("an installed package that fails to load: its own error, no advice to install it", async () => {
      await installPackage('require("got");');
      const message = await inFreshProcess(providerLoaderText("domainProvider"), "", { cwd: project }).then(
        () => "",
        (error: Error) => error.message,
      );
      expect(message).toContain(
        `This stack's email-delivery:Domain resources are run by the package pulumi-email-delivery, which could not be loaded from ${project}: ` +
          "Cannot find module 'got'",
      );
      expect(message).not.toContain("Install it");
    });

    it("an installed version without the provider the state needs: says it is too old", async () => {
      await installPackage("exports.domainProvider = {};");
      await expect(
        inFreshProcess(providerLoaderText("verificationProvider"), "", { cwd: project }),
      ).rejects.toThrow(
        "The installed pulumi-email-delivery has no verificationProvider, which this stack's state needs: " +
          "it is older than the version that wrote the state. Install a newer version in the Pulumi project.",
      );
    });

    it("an installed build from before the stored loader (no entry point for it): says it is too old", async () => {
      await installPackage();
      await expect(inFreshProcess(providerLoaderText("routeProvider"), "", { cwd: project })).rejects.toThrow(
        "Package subpath './providers' is not defined by \"exports\" in " +
          `${path.join(project, "node_modules/pulumi-email-delivery/package.json")} ` +
          "The installed version has no entry point for stored state: it is older than the version that wrote the state.",
      );
    });
  });
});
