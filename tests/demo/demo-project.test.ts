import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { load } from "js-yaml";
import { prepareDemoProject } from "../../demo/lifecycle";
import { runUnderMocks } from "../../packaging/program-under-mocks";
import { providerLoaderText } from "../../provider/providers/loader";

/**
 * What `npm run demo` runs, without the Pulumi CLI: its project has the package installed from the
 * packed tarball (not this repository's sources), and the program, run as Pulumi runs it with the
 * local stack's settings, registers every resource with the loader the installed package stores.
 */
describe("the demo's project", () => {
  let work: string;
  let project: string;
  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-demo-test-"));
    project = await prepareDemoProject(work, { build: false }); // jest's setup built dist/
  }, 300_000);
  afterAll(() => fs.rm(work, { recursive: true, force: true }));

  it("installs the package from its tarball, as a user does", async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(project, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies["pulumi-email-delivery"]).toMatch(
      /^file:vendor\/pulumi-email-delivery-.+\.tgz$/,
    );
    const installed = await fs.lstat(path.join(project, "node_modules", "pulumi-email-delivery"));
    expect(installed.isSymbolicLink()).toBe(false);
  });

  it("runs the basic example with the local stack's settings, storing the installed package's loaders", async () => {
    const local = load(await fs.readFile(path.join(project, "Pulumi.local.yaml"), "utf8")) as {
      config: Record<string, unknown>;
    };
    const config = Object.fromEntries(
      Object.entries(local.config).map(([key, value]) => [key, String(value)]),
    );
    const { registrations, warnings } = await runUnderMocks(project, {
      config,
      projectName: "email-delivery",
    });
    expect(warnings).toEqual([]);
    const providers = registrations
      .filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"))
      .map((r) => [r.type.split(":").pop(), r.inputs.__provider]);
    expect(providers).toEqual([
      ["Domain", providerLoaderText("domainProvider")],
      ["DomainVerification", providerLoaderText("verificationProvider")],
      ["Route", providerLoaderText("routeProvider")],
      ["Route", providerLoaderText("routeProvider")],
    ]);
  }, 120_000);
});
