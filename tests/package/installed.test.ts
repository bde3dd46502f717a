import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { cleanClone, linkDevDependencies } from "../../packaging/clean-clone";
import { ProgramRegistration, runUnderMocks } from "../../packaging/program-under-mocks";
import { createUserProject, InstallWay, packTarball, UserProject } from "../../packaging/user-project";
import { run } from "../../packaging/commands";
import { providerLoaderText, StoredProviderName } from "../../provider/providers/loader";
import { publishRecords } from "../support/cloudflare";
import { uniqueDomain, useEmulator } from "../support/emulator";
import { ProviderHost, rpcSecret, startProviderHost, urnFor } from "../support/provider-host";
import { readmeBlock } from "../support/readme";

/**
 * The package as users get it (README "Install"): packed from a clean clone, installed into fresh
 * projects with their own @pulumi/pulumi, @pulumi/cloudflare and typescript, in every way the
 * README gives. In each project: the README's program type-checks with the project's TypeScript;
 * run as Pulumi runs it (under mocks), it registers every dynamic resource with a small loader as
 * its provider; and the project's own provider host, started in the project as the engine starts
 * it, loads each loader and runs check and create against the emulator.
 *
 * Installs use npm's cache first and the registry for what it lacks: one install per way.
 */
const WAYS: InstallWay[] = ["tarball", "path", "link", "git"];

/** Never more than this per text; the aim is 4 KB (the smallest dynamic provider serializes to ~2 KB). */
const MAX_TEXT_BYTES = 4096;

const DYNAMIC = "pulumi-nodejs:dynamic/email-delivery:";
const PROVIDER_OF: Record<string, StoredProviderName> = {
  Domain: "domainProvider",
  Route: "routeProvider",
  DomainVerification: "verificationProvider",
};

const emulator = useEmulator();
let work: string;
let clone: string;
let packed: { file: string; files: string[] };

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-installs-"));
  clone = await cleanClone(path.join(work, "clone"));
  await linkDevDependencies(clone); // as `npm ci` in the clone would: `npm pack` and a path install build there
  packed = await packTarball(clone, path.join(work, "packed"));
}, 300_000);
afterAll(() => fs.rm(work, { recursive: true, force: true }));

it("npm pack (from a clean clone, built by prepare) ships the compiled package and its documents, nothing else", () => {
  const documents = ["CHANGELOG.md", "LICENSE", "README.md", "package.json"];
  expect(packed.files.filter((file) => !file.startsWith("dist/"))).toEqual(documents);
  const compiled = packed.files.filter((file) => file.startsWith("dist/"));
  expect(compiled.every((file) => /^dist\/provider\/.+\.(js|d\.ts)$/.test(file))).toBe(true);
  for (const entry of ["index", "providers-entry"]) {
    expect(compiled).toEqual(
      expect.arrayContaining([`dist/provider/${entry}.js`, `dist/provider/${entry}.d.ts`]),
    );
  }
});

describe.each(WAYS)("installed from %s", (way) => {
  let project: UserProject;
  let registrations: ProgramRegistration[];

  beforeAll(async () => {
    project = await createUserProject(path.join(work, way), way, { clone, tarball: packed.file });
    await fs.writeFile(path.join(project.dir, "tsconfig.json"), readmeBlock("json tsconfig.json"));
    await fs.writeFile(path.join(project.dir, "index.ts"), readmeBlock("ts index.ts"));
  }, 600_000);

  it("the README's program type-checks with the project's own TypeScript", async () => {
    await run(path.join(project.dir, "node_modules/.bin/tsc"), ["--noEmit", "-p", "."], { cwd: project.dir });
  }, 120_000);

  it("each dynamic resource stores a small loader as its provider: the same text whatever the install, with no path or key", async () => {
    const run = await runUnderMocks(project.dir, {
      config: { "user-project:cloudflareZoneId": emulator().cloudflare.zones[0].id },
    });
    registrations = run.registrations;
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
  }, 120_000);

  it("the project's provider host loads each text and runs check and create against the emulator", async () => {
    const text = (type: string) =>
      registrations.find((r) => r.type === `${DYNAMIC}${type}`)!.inputs.__provider as string;
    if (way === "path" || way === "link") {
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
  }, 120_000);
});
