import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { REPO_ROOT } from "../../packaging/clean-clone";
import { run } from "../../packaging/commands";
import { envSettings, FREE_PORTS, startCommand } from "../support/command";

/**
 * The package's entry points as Node resolves them by name (here the build in dist/, as for a
 * user): the resources and providers load nothing of the emulator, and the emulator's entry point
 * and command work on their own. tests/package/installed.test.ts runs the command from an
 * installed copy too.
 */

const BIN = `${REPO_ROOT}/dist/emulator/bin.js`;

/** The files a fresh Node process has loaded after requiring `entries` (from the repository's root). */
async function loadedBy(entries: string[]): Promise<string[]> {
  return JSON.parse(
    await run(
      process.execPath,
      [
        "-e",
        entries.map((entry) => `require(${JSON.stringify(entry)});`).join("") +
          "process.stdout.write(JSON.stringify(Object.keys(require.cache)))",
      ],
      { cwd: REPO_ROOT },
    ),
  ) as string[];
}

describe("entry points", () => {
  it("the resources and the stored-state entry point load no module of the emulator", async () => {
    const files = await loadedBy(["pulumi-email-delivery", "pulumi-email-delivery/providers"]);
    expect(files.some((file) => file.includes("/dist/provider/"))).toBe(true);
    expect(files.filter((file) => file.includes("/dist/emulator/") || file.includes("/dns-packet/"))).toEqual(
      [],
    );
  });

  it("a program's Domain loads neither the email client nor the package's Cloudflare client", async () => {
    // A program declares Domains; the clients are the providers' (another process). Two imports
    // once pulled both in through a barrel: route modes from client/, words from cloudflare/.
    const files = (await loadedBy(["./dist/provider/resources/domain.js"])).map((file) =>
      path.relative(REPO_ROOT, file),
    );
    expect(files).toContain("dist/provider/resources/publishing/domain-publisher.js");
    expect(
      files.filter((file) =>
        /^dist\/provider\/(client\/(?!types\.js)|cloudflare\/(api-request|dns-records)\.js|dynamic\/connection\.js)/.test(
          file,
        ),
      ),
    ).toEqual([]);
    expect(files.filter((file) => /\/node_modules\/got\//.test(file))).toEqual([]);
  });

  it("the stored-state entry point loads no module of Pulumi's SDK (its log only when a line is written)", async () => {
    // The provider host loads this entry for every command (a fresh process each): the SDK's
    // index is some 600 modules more (922 against 338, 1 s of a cold start against 0.35 s), and
    // even its log loads gRPC, protobuf, OpenTelemetry and semver (185 modules).
    const files = await loadedBy(["pulumi-email-delivery/providers"]);
    // The entry and the code cache's own module, which runs the providers' bundle.
    expect(files.map((file) => path.relative(REPO_ROOT, file))).toEqual([
      "dist/provider/providers-entry.js",
      "dist/provider/code-cache.js",
    ]);
    expect(
      files.filter((file) =>
        /\/node_modules\/(@pulumi|@grpc|@opentelemetry|google-protobuf|semver)\//.test(file),
      ),
    ).toEqual([]);
  });

  it("no entry point loads @pulumi/policy (an optional peer); the policies load neither Pulumi's SDK nor Cloudflare's", async () => {
    const every = await loadedBy([
      "pulumi-email-delivery",
      "pulumi-email-delivery/providers",
      "pulumi-email-delivery/testing",
      "pulumi-email-delivery/emulator",
      "pulumi-email-delivery/policy",
    ]);
    expect(every.some((file) => file.includes("/dist/provider/policy/"))).toBe(true);
    expect(every.filter((file) => file.includes("/@pulumi/policy/"))).toEqual([]);
    // A policy pack starts for every preview: the policies need only the package's DNS code.
    const policies = await loadedBy(["pulumi-email-delivery/policy"]);
    expect(policies.filter((file) => /\/@pulumi\/(pulumi|cloudflare)\//.test(file))).toEqual([]);
  });

  it("pulumi-email-delivery/emulator starts and stops an emulator on free ports", async () => {
    const loaded = await run(
      process.execPath,
      [
        "-e",
        `const { startEmulator } = require("pulumi-email-delivery/emulator");
         startEmulator().then(async (emulator) => {
           const answer = await fetch(emulator.emailApi.url + "/api/v1/domains/list", {
             method: "POST", headers: { "X-Server-API-Key": emulator.emailApi.apiKey, "Content-Type": "application/json" }, body: "{}" });
           process.stdout.write(JSON.stringify({ status: answer.status, body: await answer.json() }));
           await emulator.stop();
         });`,
      ],
      { cwd: REPO_ROOT },
    );
    expect(JSON.parse(loaded)).toMatchObject({ status: 200, body: { status: "success", data: [] } });
  });

  it.each(["Node10", "Node16", "Bundler"] as const)(
    "TypeScript finds each entry point's declarations in dist/ (moduleResolution %s)",
    async (resolution) => {
      // node10 (`"moduleResolution": "node"`, common in existing projects) ignores "exports": the
      // subpaths reach their declarations through "typesVersions" or not at all.
      const project = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-resolution-"));
      try {
        await fs.mkdir(path.join(project, "node_modules"));
        await fs.symlink(REPO_ROOT, path.join(project, "node_modules", "pulumi-email-delivery"));
        const options: ts.CompilerOptions = {
          moduleResolution: ts.ModuleResolutionKind[resolution],
          module: {
            Node10: ts.ModuleKind.CommonJS,
            Node16: ts.ModuleKind.Node16,
            Bundler: ts.ModuleKind.ESNext,
          }[resolution],
        };
        const declarations = Object.fromEntries(
          ["", "/providers", "/emulator", "/testing", "/policy"].map((subpath) => {
            const resolved = ts.resolveModuleName(
              `pulumi-email-delivery${subpath}`,
              path.join(project, "index.ts"),
              options,
              ts.sys,
            ).resolvedModule;
            return [subpath || "/", resolved && path.relative(REPO_ROOT, resolved.resolvedFileName)];
          }),
        );
        expect(declarations).toEqual({
          "/": "dist/provider/index.d.ts",
          "/providers": "dist/provider/providers-entry.d.ts",
          "/emulator": "dist/emulator/index.d.ts",
          "/testing": "dist/testing/index.d.ts",
          "/policy": "dist/provider/policy/index.d.ts",
        });
      } finally {
        await fs.rm(project, { recursive: true, force: true });
      }
    },
  );

  describe("the command", () => {
    it("--help says how to use it and exits", async () => {
      const help = await run(process.execPath, [BIN, "--help"], { cwd: REPO_ROOT });
      expect(help).toMatch(/^Usage: pulumi-email-delivery-emulator \[options\]/);
      expect(help).toContain("--state FILE");
      // Every fault key is explained in the help itself: the package ships no sources to point at.
      for (const key of [
        "rate429",
        "rate503",
        "dropRate",
        "commitThenDropRate",
        "latencyMs",
        "retryAfterSeconds",
        "times",
      ])
        expect(help).toContain(key);
      expect(help).not.toMatch(/\b(emulator|provider|testing)\/[\w/-]+\.ts\b/);
    });

    it("a bad option: one line, exit 1", async () => {
      const error = await run(process.execPath, [BIN, "--email-port", "99999"], { cwd: REPO_ROOT }).catch(
        (e: Error) => e,
      );
      expect(String(error)).toContain("emulator: --email-port: not a port: 99999");
      expect(String(error)).not.toMatch(/^\s+at /m);
    });

    it("prints its settings, serves them, and stops on Ctrl-C", async () => {
      const command = startCommand(process.execPath, [BIN, ...FREE_PORTS], REPO_ROOT);
      try {
        await command.waitFor(/^# ready/);
        const settings = envSettings(command.lines);
        const answer = await fetch(`${settings.EMAIL_DELIVERY_BASE_URL}/api/v1/domains/list`, {
          method: "POST",
          headers: {
            "X-Server-API-Key": settings.EMAIL_DELIVERY_API_KEY,
            "Content-Type": "application/json",
          },
          body: "{}",
        });
        expect(answer.status).toBe(200);
        expect(settings.EMULATOR_DNS_SERVER).toMatch(/^127\.0\.0\.1:\d+$/);
      } finally {
        expect(await command.stop()).toBe(0);
      }
    });
  });
});
