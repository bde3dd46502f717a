import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { run } from "../../packaging/commands";
import { hostCopyProblem } from "../../provider/resources/host-copy";

const REPO_ROOT = path.resolve(__dirname, "../..");

describe("hostCopyProblem: will the provider host run the resources with the copy that registers them", () => {
  const registering = {
    root: "/app/node_modules/.pnpm/pulumi-email-delivery@0.2.0/node_modules/pulumi-email-delivery",
    version: "0.2.0",
  };

  it("none installed in the project: says where it came from, where the host looks, and what to add", () => {
    expect(hostCopyProblem(registering, undefined, "/app/infra")).toBe(
      `pulumi-email-delivery 0.2.0 (loaded from ${registering.root}) is not installed in the Pulumi project: ` +
        "the provider host runs in /app/infra and loads the package from there by name to run this stack's resources, " +
        "so they will fail. Add it to the project's own dependencies (npm install pulumi-email-delivery@0.2.0), " +
        "not only to a package that depends on it.",
    );
  });

  it("another version installed in the project: names both", () => {
    const other = { root: "/app/infra/node_modules/pulumi-email-delivery", version: "0.1.0" };
    expect(hostCopyProblem(registering, other, "/app/infra")).toBe(
      `This program registers its email-delivery resources with pulumi-email-delivery 0.2.0 (from ${registering.root}), ` +
        "but the provider host will run them with 0.1.0, the version installed in the Pulumi project " +
        "(/app/infra/node_modules/pulumi-email-delivery). Make the project depend on the version the program uses.",
    );
  });

  it("the same copy, or another copy of the same version: nothing to say", () => {
    expect(hostCopyProblem(registering, registering, "/app")).toBeUndefined();
    expect(hostCopyProblem(registering, { root: "/elsewhere", version: "0.2.0" }, "/app")).toBeUndefined();
  });
});

/**
 * The warning as a program gets it: the built package registers two Routes under mocks in a fresh
 * `node` process whose folder is where the engine would start the provider host.
 */
describe("a program registering resources warns once when the host would load another copy", () => {
  let project: string;
  beforeEach(async () => {
    project = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-host-copy-"));
  });
  afterEach(() => fs.rm(project, { recursive: true, force: true }));

  const warningsIn = async (cwd: string) => {
    const script = `
      const pulumi = require(${JSON.stringify(require.resolve("@pulumi/pulumi"))});
      const { Route } = require(${JSON.stringify(path.join(REPO_ROOT, "dist/provider"))});
      pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: () => ({}) }, "p", "s", true);
      const warnings = [];
      console.warn = (line) => warnings.push(line);
      new Route("a", { name: "a", domainId: 1, endpointId: 1 });
      new Route("b", { name: "b", domainId: 1, endpointId: 1 });
      // Without an engine the warning is printed at once, from the first resource's constructor.
      process.stdout.write(JSON.stringify(warnings));`;
    return JSON.parse(await run(process.execPath, ["-e", script], { cwd })) as string[];
  };

  it("not installed where the host starts", async () => {
    expect(await warningsIn(project)).toEqual([
      expect.stringMatching(
        /^warning: \[runtime\] pulumi-email-delivery 0\.1\.0 \(loaded from .+\) is not installed in the Pulumi project/,
      ),
    ]);
  });

  it("another version installed there", async () => {
    const installed = path.join(project, "node_modules", "pulumi-email-delivery");
    await fs.mkdir(installed, { recursive: true });
    await fs.writeFile(
      path.join(installed, "package.json"),
      JSON.stringify({
        name: "pulumi-email-delivery",
        version: "0.0.9",
        exports: { "./package.json": "./package.json" },
      }),
    );
    expect(await warningsIn(project)).toEqual([
      expect.stringContaining(
        "but the provider host will run them with 0.0.9, the version installed in the Pulumi project",
      ),
    ]);
  });

  it("the project is this package (its own folder): no warning", async () => {
    expect(await warningsIn(REPO_ROOT)).toEqual([]);
  });
});
