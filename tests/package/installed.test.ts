import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { load } from "js-yaml";
import { prepareDemoProject } from "../../demo/lifecycle";
import { cleanClone, copyBuild, linkDevDependencies } from "../../packaging/clean-clone";
import { npm, run } from "../../packaging/commands";
import { ProgramUnderMocks, runUnderMocks } from "../../packaging/program-under-mocks";
import {
  createUserProject,
  InstallWay,
  PACKAGE_NAME,
  packTarball,
  TEST_PACKAGES,
  testedVersions,
  UserProject,
} from "../../packaging/user-project";
import { providerLoaderText, StoredProviderName } from "../../provider/dynamic/loader";
import { publishRecords } from "../support/cloudflare";
import { uniqueDomain, useEmulator } from "../support/emulator";
import { ProviderHost, rpcSecret, startProviderHost, urnFor } from "../support/provider-host";
import { FREE_PORTS, startCommand } from "../support/command";
import { documentBlock, readmeBlock } from "../support/readme";

/** A code block of docs/testing.md, where the tests of a user's program are shown. */
const testingGuideBlock = (info: string) => documentBlock("docs/testing.md", info);

/**
 * The package as users get it (README "Install"): from a clean clone, installed into fresh
 * projects with their own @pulumi/pulumi, @pulumi/cloudflare and typescript, in every way the
 * README gives. In each project a program, run as Pulumi runs it (its ts-node, which type-checks
 * with the project's own TypeScript, under mocks), registers every dynamic resource with a small
 * loader as its provider, and the project's own provider host, started in the project as the
 * engine starts it, loads each loader and runs check and create against the emulator.
 *
 * - path: `npm install <clone>`, whose `prepare` finds the clone built, as its `npm ci` leaves
 *   it (the build jest's setup made of the same sources, copied); the README's program.
 * - tarball: `npm pack` of that clone, installed by `prepareDemoProject`, the project `npm run
 *   demo` runs: the basic example with the local stack's settings.
 * - git: `npm install git+file://<clone>`, which clones and builds it from its sources; the README's program,
 *   also checked by `tsc` over the program and the package's declarations (the README's tsconfig
 *   has no skipLibCheck). The other two hold the very same files (asserted byte for byte), so
 *   `tsc` there would check them again to the same end.
 *
 * Installs use npm's cache first and the registry for what it lacks: one install per way. They
 * all start at once (npm's cache takes concurrent installs), the git install first, because its
 * project's chain (install and build, tsc, programs, then docs/testing.md's jest test) is the
 * longest in the suite; each project's checks start as soon as it is installed; the tests then wait for
 * what they assert on.
 */
const WAYS: InstallWay[] = ["git", "path", "tarball"];
/** The way whose project `tsc` checks; the others are compared with it file by file. */
const TSC_WAY: InstallWay = "git";

/** Never more than this per text; the aim is 4 KB (the smallest dynamic provider serializes to ~2 KB). */
const MAX_TEXT_BYTES = 4096;

const DYNAMIC = "pulumi-nodejs:dynamic/email-delivery:";
const PROVIDER_OF: Record<string, StoredProviderName> = {
  Domain: "domainProvider",
  Route: "routeProvider",
  DomainVerification: "verificationProvider",
};

/** A project installed one way, with its checks under way. */
interface Installed {
  project: UserProject;
  /** `tsc --noEmit` over the README's program with the project's own TypeScript (TSC_WAY only). */
  typeCheck?: Promise<void>;
  /** The project's program run as Pulumi runs it, under mocks. */
  underMocks: Promise<ProgramUnderMocks>;
}

const emulator = useEmulator();
let work: string;
let clone: string;
let packed: { file: string; files: string[] };
const installs = new Map<InstallWay, Promise<Installed>>();
/** The type-error test's own program run, awaited before the work folder goes. */
let brokenRun: Promise<unknown> | undefined;

/** The project for `way`: the demo's for the tarball, else one with the README's tsconfig.json and program. */
async function createProject(way: InstallWay): Promise<UserProject> {
  if (way === "tarball") {
    packed = await packTarball(clone, path.join(work, "packed"), { build: false }); // the clone is built
    const dir = await prepareDemoProject(path.join(work, way), { tarball: packed.file });
    return { dir, way, packageSpec: packed.file };
  }
  const project = await createUserProject(path.join(work, way), way, { clone });
  await fs.writeFile(path.join(project.dir, "tsconfig.json"), readmeBlock("json tsconfig.json"));
  await fs.writeFile(path.join(project.dir, "index.ts"), readmeBlock("ts index.ts"));
  return project;
}

/** What the project's program is run with: its project name and the stack config it reads. */
async function programSettings(
  project: UserProject,
): Promise<{ projectName: string; config: Record<string, string> }> {
  if (project.way !== "tarball") {
    return {
      projectName: "user-project",
      config: { "user-project:cloudflareZoneId": emulator().cloudflare.zones[0].id },
    };
  }
  const local = load(await fs.readFile(path.join(project.dir, "Pulumi.local.yaml"), "utf8")) as {
    config: Record<string, unknown>;
  };
  const config = Object.entries(local.config).map(([key, value]) => [key, String(value)]);
  return { projectName: "email-delivery", config: Object.fromEntries(config) };
}

/** Starts a project's checks: read-only, so they may run beside the next install. */
function startChecks(project: UserProject): Installed {
  const typeCheck =
    project.way === TSC_WAY
      ? run(path.join(project.dir, "node_modules/.bin/tsc"), ["--noEmit", "-p", "."], {
          cwd: project.dir,
        }).then(() => undefined)
      : undefined;
  // After the type-check rather than beside it: two compilers at once only compete for the cores.
  const underMocks = (typeCheck ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => programSettings(project))
    .then((settings) => runUnderMocks(project.dir, settings));
  // Each is awaited by its test; until then, a failure must not count as unhandled.
  typeCheck?.catch(() => undefined);
  underMocks.catch(() => undefined);
  return { project, typeCheck, underMocks };
}

/** Every file under `dir` (relative, sorted) with its bytes' SHA-256; `node_modules` skipped. */
async function fileHashes(dir: string): Promise<Map<string, string>> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.split(path.sep).includes("node_modules"))
    .sort();
  const hashes = new Map<string, string>();
  for (const file of files) {
    hashes.set(
      file,
      createHash("sha256")
        .update(await fs.readFile(path.join(dir, file)))
        .digest("hex"),
    );
  }
  return hashes;
}

/** The folder a project's `node_modules/pulumi-email-delivery` resolves to. */
function installedPackage(project: UserProject): Promise<string> {
  return fs.realpath(path.join(project.dir, "node_modules", PACKAGE_NAME));
}

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-installs-"));
  clone = await cleanClone(path.join(work, "clone"));
  // As `npm ci` in the clone leaves it, for the path install: dependencies and a build. The git
  // install builds from the committed sources alone, and the files are compared byte for byte.
  await linkDevDependencies(clone);
  await copyBuild(clone);
  for (const way of WAYS) {
    const installed = createProject(way).then(startChecks);
    installed.catch(() => undefined); // a failed install is reported by that way's tests
    installs.set(way, installed);
  }
}, 300_000);
afterAll(async () => {
  // Nothing may still be installing or checking in the folder being removed.
  const settled = await Promise.allSettled(installs.values());
  for (const outcome of settled) {
    if (outcome.status === "fulfilled") {
      await Promise.allSettled([outcome.value.typeCheck, outcome.value.underMocks, brokenRun]);
    }
  }
  await fs.rm(work, { recursive: true, force: true });
}, 600_000);

it("npm pack (of a clean clone built by its prepare script) ships the compiled package and its documents, nothing else", async () => {
  await installs.get("tarball");
  const documents = ["CHANGELOG.md", "LICENSE", "README.md", "package.json"];
  // The ready policy pack: a folder users name in `pulumi preview --policy-pack`.
  const policyPack = ["policy-pack/PulumiPolicy.yaml", "policy-pack/index.js", "policy-pack/package.json"];
  expect(packed.files.filter((file) => !file.startsWith("dist/"))).toEqual([...documents, ...policyPack]);
  const compiled = packed.files.filter((file) => file.startsWith("dist/"));
  expect(compiled.every((file) => /^dist\/(provider|emulator|testing)\/.+\.(js|d\.ts)$/.test(file))).toBe(
    true,
  );
  for (const entry of [
    "provider/index",
    "provider/providers-entry",
    "emulator/index",
    "emulator/bin",
    "provider/doctor/bin",
    "provider/policy/index",
    "testing/index",
  ]) {
    expect(compiled).toEqual(expect.arrayContaining([`dist/${entry}.js`, `dist/${entry}.d.ts`]));
  }
  // The doctor command as one file, which bin.js runs (packaging/bundles.js).
  expect(compiled).toContain("dist/provider/doctor/command.bundle.js");
}, 600_000);

it(`tsc passes over the README's program and the package's declarations with the project's own TypeScript (${TSC_WAY})`, async () => {
  await (
    await installs.get(TSC_WAY)!
  ).typeCheck;
}, 600_000);

it(`a type error in a program fails its run as Pulumi runs it (${TSC_WAY}): the runs below type-check`, async () => {
  const { project, underMocks } = await installs.get(TSC_WAY)!;
  await underMocks.catch(() => undefined); // one program run at a time
  await fs.writeFile(
    path.join(project.dir, "broken.ts"),
    'import { Route } from "pulumi-email-delivery";\nnew Route("r", { name: 7, domainId: 1, endpointId: 1 });\n',
  );
  brokenRun = runUnderMocks(project.dir, { program: "broken.ts", ...(await programSettings(project)) });
  await expect(brokenRun).rejects.toThrow(/broken\.ts.*TS2322|TS2322.*broken\.ts/s);
}, 600_000);

it.each(WAYS.filter((way) => way !== TSC_WAY))(
  `installed from %s: the package's files are byte for byte those of the ${TSC_WAY} install`,
  async (way) => {
    const reference = await fileHashes(await installedPackage((await installs.get(TSC_WAY)!).project));
    const { project } = await installs.get(way)!;
    const installed = await installedPackage(project);
    if (way === "path") {
      // A symlink to the clone, whose build holds every file git installs (and its sources).
      expect(installed).toBe(await fs.realpath(clone));
      const cloneFiles = await fileHashes(installed);
      for (const [file, hash] of reference) expect([file, cloneFiles.get(file)]).toEqual([file, hash]);
    } else {
      expect(await fileHashes(installed)).toEqual(reference);
    }
  },
  600_000,
);

it("installed from tarball: the demo's project records the vendored tarball and holds a copy, not a link", async () => {
  const { project } = await installs.get("tarball")!;
  const manifest = JSON.parse(await fs.readFile(path.join(project.dir, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  expect(manifest.dependencies[PACKAGE_NAME]).toMatch(/^file:vendor\/pulumi-email-delivery-.+\.tgz$/);
  const installed = await fs.lstat(path.join(project.dir, "node_modules", PACKAGE_NAME));
  expect(installed.isSymbolicLink()).toBe(false);
}, 600_000);

it("installed from tarball: the doctor command runs from the project (npx)", async () => {
  const { project } = await installs.get("tarball")!;
  // run() fails on an exit code other than 0.
  const help = await run("npx", ["--no-install", "pulumi-email-delivery", "doctor", "--help"], {
    cwd: project.dir,
  });
  expect(help).toMatch(/^Usage: pulumi-email-delivery doctor <domain> \[options\]/);
  expect(help).toContain("--records FILE");
}, 600_000);

it("installed from tarball: the policies load from the project, which has no @pulumi/policy", async () => {
  const { project } = await installs.get("tarball")!;
  const names = await run(
    process.execPath,
    ["-e", 'process.stdout.write(JSON.stringify(require("pulumi-email-delivery/policy").POLICY_NAMES))'],
    { cwd: project.dir },
  );
  expect(JSON.parse(names)).toContain("email-spf-record");
  // An optional peer: npm installs it only when the project asks for it (a policy pack does).
  await expect(fs.access(path.join(project.dir, "node_modules/@pulumi/policy"))).rejects.toThrow();
}, 600_000);

it("installed from tarball: the emulator's command runs from the project (npx), and starts and stops", async () => {
  const { project } = await installs.get("tarball")!;
  const npx = (args: string[]) =>
    run("npx", ["--no-install", "pulumi-email-delivery-emulator", ...args], { cwd: project.dir });
  expect(await npx(["--help"])).toMatch(/^Usage: pulumi-email-delivery-emulator \[options\]/);
  // Started from the installed command (what npx runs), on free ports, then stopped as Ctrl-C would.
  const command = startCommand(
    path.join(project.dir, "node_modules", ".bin", "pulumi-email-delivery-emulator"),
    FREE_PORTS,
    project.dir,
  );
  try {
    expect(await command.waitFor(/^EMAIL_DELIVERY_BASE_URL=/)).toMatch(
      /^EMAIL_DELIVERY_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/,
    );
    await command.waitFor(/^# ready; Ctrl-C to stop$/);
  } finally {
    expect(await command.stop()).toBe(0);
  }
}, 600_000);

/**
 * Tests a platform team adds beside docs/testing.md's, with its jest config and the README's
 * tsconfig as they are: `getDomain` in a program (got is an ES module, which jest's own registry
 * cannot require), in a preview and live, of a domain seeded as another stack's; a program that throws
 * after declaring a Domain, which must create nothing, then or later.
 */
const TEAM_TESTS = `import { afterAll, beforeAll, expect, test } from "@jest/globals";
import * as pulumi from "@pulumi/pulumi";
import { Domain, getDomain } from "pulumi-email-delivery";
import { destroyRun, Emulator, runProgram, startEmulator } from "pulumi-email-delivery/testing";

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
  await emulator.emailApi.addDomain("shared.example.com");
});
afterAll(() => emulator.stop());

const found = async () => ({ id: (await getDomain({ name: "shared.example.com" })).domainId });

test("getDomain in a preview", async () => {
  const run = await runProgram(found, { mode: "preview", emulator });
  expect(run.errors).toEqual([]);
  expect(run.outputs.id).toBe(emulator.emailApi.domains()[0].id);
});

test("getDomain live", async () => {
  const run = await runProgram(found, { mode: "live", emulator });
  expect(run.errors).toEqual([]);
  expect(run.outputs.id).toBe(emulator.emailApi.domains()[0].id);
});

test("a program that throws after declaring a Domain creates nothing", async () => {
  const zoneId = emulator.cloudflare.zones[0].id;
  const run = await runProgram(
    () => {
      new Domain("mail", { name: "mail.example.com", cloudflare: { zoneId } });
      throw new Error("a mistake after the Domain");
    },
    { mode: "live", emulator },
  );
  expect(run.errors).toEqual([{ source: "program", message: "a mistake after the Domain" }]);
  const next = await runProgram(() => ({ stack: pulumi.getStack() }), { mode: "preview", emulator });
  expect(next.errors).toEqual([]);
  expect(emulator.emailApi.domains().map((d) => d.name)).toEqual(["shared.example.com"]);
  expect(emulator.cloudflare.records(zoneId)).toEqual([]);
  expect((await destroyRun(run, { mode: "live", emulator })).deleted).toEqual([]);
});
`;

describe("docs/testing.md's tests of a user's program, with the kit", () => {
  it(`jest (installed from ${TSC_WAY}): preview, live and a bad input, against an emulator of its own; and a unit test under Pulumi's own mocks`, async () => {
    const { project, underMocks } = await installs.get(TSC_WAY)!;
    await underMocks.catch(() => undefined); // one program run at a time in the project
    await npm(["install", "--save-dev", ...testedVersions(TEST_PACKAGES)], { cwd: project.dir });
    await fs.writeFile(path.join(project.dir, "jest.config.js"), testingGuideBlock("js jest.config.js"));
    await fs.writeFile(path.join(project.dir, "mail.test.ts"), testingGuideBlock("ts mail.test.ts"));
    await fs.writeFile(path.join(project.dir, "team.test.ts"), TEAM_TESTS);
    await fs.writeFile(path.join(project.dir, "unit.test.ts"), testingGuideBlock("ts unit.test.ts"));
    const cache = path.join(project.dir, ".jest-cache");
    const reportFile = path.join(project.dir, "jest-report.json");
    const output = await run(
      "npx",
      ["--no-install", "jest", "--ci", "--json", "--outputFile", reportFile, "--cacheDirectory", cache],
      { cwd: project.dir, stderr: true },
    );
    const report = JSON.parse(await fs.readFile(reportFile, "utf8")) as {
      numFailedTests: number;
      testResults: {
        name: string;
        assertionResults: { title: string; status: string; duration: number }[];
      }[];
    };
    const results = Object.fromEntries(
      report.testResults.map((file) => [path.basename(file.name), file.assertionResults]),
    );
    // Each test's time, for the record (never asserted: a busy machine's timings vary).
    console.log(
      report.testResults
        .flatMap((file) => file.assertionResults.map((r) => `${r.duration} ms  ${r.title}`))
        .join("\n"),
    );
    expect(report.numFailedTests).toBe(0);
    expect(results["mail.test.ts"].map((result) => result.title)).toEqual([
      "a preview shows the domain's records and creates nothing",
      "up verifies the domain through DNS and creates the routes",
      "a zone id left as a placeholder fails the preview, naming the setting",
    ]);
    expect(results["team.test.ts"].map((result) => result.status)).toEqual(["passed", "passed", "passed"]);
    // Pulumi's own mocks, without the kit: the program with its Domain runs as before.
    expect(results["unit.test.ts"].map((result) => [result.title, result.status])).toEqual([
      ["the support route quarantines spam", "passed"],
    ]);
    expect(output).toContain("the zone checks were skipped");
    // The README's tsconfig lets ts-jest compile each file alone: no TS151002 warning.
    expect(output).not.toContain("TS151002");
  }, 600_000);

  it("Node's test runner (installed from path): live, with the program's TypeScript compiled as Pulumi compiles it", async () => {
    const { project, underMocks } = await installs.get("path")!;
    await underMocks.catch(() => undefined);
    await fs.writeFile(
      path.join(project.dir, "mail.node-test.mjs"),
      testingGuideBlock("js mail.node-test.mjs"),
    );
    const output = await run(process.execPath, ["--test", "--test-reporter=tap", "mail.node-test.mjs"], {
      cwd: project.dir,
    });
    // Each test's time, for the record (never asserted).
    console.log(
      [...output.matchAll(/^# Subtest: (.+)\n(?:.*\n)*?\s+duration_ms: ([\d.]+)/gm)]
        .map((m) => `${Math.round(Number(m[2]))} ms  ${m[1]}`)
        .join("\n"),
    );
    expect(output).toMatch(/^# pass 2$/m);
    expect(output).toMatch(/^# fail 0$/m);
    // The failing program's test passed: no unhandled rejection reached the runner, nor a warning.
    expect(output).not.toContain("unhandledRejection");
    expect(output).not.toContain("PromiseRejectionHandledWarning");
    expect(output).not.toContain("promises were still active");
  }, 600_000);
});

describe.each(WAYS)("installed from %s", (way) => {
  it("its program, run as Pulumi runs it (type-checked), stores a small loader as each dynamic resource's provider: the same text whatever the install, with no path or key", async () => {
    const run = await (await installs.get(way)!).underMocks;
    const registrations = run.registrations;
    // The host started in the project loads the very copy that registered the resources.
    expect(run.warnings).toEqual([]);
    const dynamic = registrations.filter((r) => r.type.startsWith(DYNAMIC));
    expect(dynamic.map((r) => r.type.slice(DYNAMIC.length)).sort()).toEqual([
      "Domain",
      "DomainVerification",
      "Route",
      "Route",
    ]);
    for (const registration of dynamic) {
      const text = registration.inputs.__provider as string;
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_TEXT_BYTES);
      expect(text).toBe(providerLoaderText(PROVIDER_OF[registration.type.slice(DYNAMIC.length)]));
      for (const machinePath of [work, os.tmpdir(), os.homedir(), process.cwd()]) {
        expect(text).not.toContain(machinePath);
      }
      expect(text).not.toContain(emulator().emailApi.apiKey);
    }
  }, 600_000);

  it("the project's provider host loads each text and runs check and create against the emulator", async () => {
    const { project, underMocks } = await installs.get(way)!;
    const { registrations } = await underMocks;
    const text = (type: string) =>
      registrations.find((r) => r.type === `${DYNAMIC}${type}`)!.inputs.__provider as string;
    if (way === "path") {
      // Only the package resolves from the project: its own dependencies live in the clone.
      await expect(
        run(process.execPath, ["-e", 'require.resolve("got")'], { cwd: project.dir }),
      ).rejects.toThrow();
    }
    const host: ProviderHost = await startProviderHost({ cwd: project.dir, project: "user-project" });
    try {
      await host.configure({
        "emailDelivery:baseUrl": emulator().emailApi.url,
        "emailDelivery:apiKey": rpcSecret(emulator().emailApi.apiKey),
      });
      const domainUrn = urnFor("email-delivery:Domain", "mail");
      const bad = await host.check(domainUrn, {}, { name: "Mail.Example.com", __provider: text("Domain") });
      expect(bad.failures).toEqual([{ property: "name", reason: expect.stringContaining("lowercase") }]);

      const name = uniqueDomain(way);
      const domainCheck = await host.check(domainUrn, {}, { name, __provider: text("Domain") });
      expect(domainCheck.failures).toEqual([]);
      const domain = await host.create(domainUrn, domainCheck.inputs);
      expect(domain.properties).toMatchObject({
        name,
        domainId: Number(domain.id),
        __provider: text("Domain"),
      });
      await publishRecords(emulator(), domain.properties.dnsRecords as never);

      const verificationUrn = urnFor("email-delivery:DomainVerification", "mail-verification");
      const verificationCheck = await host.check(
        verificationUrn,
        {},
        {
          domainId: Number(domain.id),
          timeoutSeconds: 60,
          pollIntervalSeconds: 1,
          __provider: text("DomainVerification"),
        },
      );
      expect(verificationCheck.failures).toEqual([]);
      const verification = await host.create(verificationUrn, verificationCheck.inputs);
      expect(verification.properties).toMatchObject({ verified: true, spfStatus: "OK", dkimStatus: "OK" });

      const routeUrn = urnFor("email-delivery:Route", "support");
      const routeCheck = await host.check(
        routeUrn,
        {},
        {
          name: "support",
          domainId: Number(domain.id),
          endpointId: 1,
          spamMode: "Quarantine",
          __provider: text("Route"),
        },
      );
      expect(routeCheck.failures).toEqual([]);
      const route = await host.create(routeUrn, routeCheck.inputs);
      expect(route.properties).toMatchObject({
        name: "support",
        routeId: Number(route.id),
        spamMode: "Quarantine",
      });
      expect(emulator().state.routes.some((r) => r.id === Number(route.id))).toBe(true);
      expect(host.output()).not.toContain(emulator().emailApi.apiKey);
    } finally {
      await host.stop();
    }
  }, 600_000);
});
