import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

/**
 * The package as users get it: built, installed under node_modules, imported by name. Pulumi then
 * serializes the providers by reference into the package (`require("pulumi-email-delivery/…")`),
 * which only works if package.json's "exports" lets those paths through.
 */
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, "../..");

describe("the installed package", () => {
  let project: string;
  beforeAll(async () => {
    project = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-installed-"));
    const installed = path.join(project, "node_modules", "pulumi-email-delivery");
    await fs.mkdir(installed, { recursive: true });
    await run(process.execPath, [
      path.join(ROOT, "node_modules/typescript/bin/tsc"),
      "-p",
      path.join(ROOT, "tsconfig.build.json"),
      "--outDir",
      path.join(installed, "dist"),
    ]);
    await fs.copyFile(path.join(ROOT, "package.json"), path.join(installed, "package.json"));
    // Its dependencies, as npm would have installed them beside it.
    for (const entry of await fs.readdir(path.join(ROOT, "node_modules"))) {
      if (entry.startsWith(".")) continue;
      await fs.symlink(path.join(ROOT, "node_modules", entry), path.join(project, "node_modules", entry));
    }
  }, 120_000);
  afterAll(() => fs.rm(project, { recursive: true, force: true }));

  it("serializes every provider by reference, and the text runs", async () => {
    const script = `
      const pulumi = require("@pulumi/pulumi");
      const requireFromString = require("require-from-string");
      const pkg = require("pulumi-email-delivery");
      const valid = {
        domainProvider: { name: "mail.example.com" },
        routeProvider: { name: "support", domainId: 1, endpointId: 1 },
        verificationProvider: { domainId: 1 },
      };
      (async () => {
        const result = {};
        for (const [name, news] of Object.entries(valid)) {
          const { text } = await pulumi.runtime.serializeFunction(() => pkg[name], { allowSecrets: true });
          const provider = requireFromString(text).handler();
          result[name] = {
            byReference: text.includes('require("pulumi-email-delivery/dist/provider/'),
            failures: (await provider.check({}, news)).failures,
            badFailures: (await provider.check({}, { unknownInput: 1 })).failures.length,
          };
        }
        console.log(JSON.stringify(result));
      })().catch((error) => { console.error(error.message); process.exit(1); });`;
    const { stdout } = await run(process.execPath, ["-e", script], { cwd: project });
    const result = JSON.parse(stdout) as Record<
      string,
      { byReference: boolean; failures: unknown[]; badFailures: number }
    >;
    for (const name of ["domainProvider", "routeProvider", "verificationProvider"]) {
      expect(result[name]).toEqual({ byReference: true, failures: [], badFailures: expect.any(Number) });
      expect(result[name].badFailures).toBeGreaterThan(0);
    }
  }, 60_000);

  it("exposes the resources and nothing from the sources", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "-e",
        'const p = require("pulumi-email-delivery"); console.log(require.resolve("pulumi-email-delivery"), typeof p.Domain, typeof p.Route, typeof p.DomainVerification)',
      ],
      { cwd: project },
    );
    expect(stdout.trim()).toBe(
      `${path.join(project, "node_modules/pulumi-email-delivery/dist/provider/index.js")} function function function`,
    );
  });
});
