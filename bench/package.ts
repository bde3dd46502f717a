import { promises as fs } from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../packaging/clean-clone";
import { runUnderMocks } from "../packaging/program-under-mocks";
import { createUserProject, packTarball } from "../packaging/user-project";
import { STORED_PROVIDERS, StoredProviderName } from "../provider/dynamic/loader";
import type { BenchProviders } from "./setup";

export type StoredType = "Domain" | "DomainVerification" | "Route";
const MEASURED: readonly string[] = ["Domain", "DomainVerification", "Route"] satisfies StoredType[];

/**
 * The resource types whose provider text the bench measures (`email-delivery:<type>`), with the
 * provider that runs each: those the bench's program registers (a claimed record is registered
 * only under an existing-record policy, which the program does not choose).
 */
export const STORED_TYPES = Object.fromEntries(
  Object.entries(STORED_PROVIDERS)
    .map(([provider, type]) => [type.split(":")[1], provider])
    .filter(([type]) => MEASURED.includes(type)),
) as Record<StoredType, StoredProviderName>;

export interface InstalledPackage {
  /** A project with the package installed from its tarball, as users install it. */
  dir: string;
  /** The installed package's providers, loaded into this process as its loaders load them. */
  providers: BenchProviders;
  /** Loads a module as the project would (`pulumi-email-delivery/policy`, …). */
  require<T>(id: string): T;
  /** The `__provider` text each resource type stores, as a program in the project registers it. */
  texts: Record<StoredType, string>;
  remove(): Promise<void>;
}

/** A program with every dynamic resource type, to read the texts Pulumi would store. */
export const PROGRAM = `
import { Domain, Route } from "pulumi-email-delivery";
const domain = new Domain("mail", { name: "mail.example.com", cloudflare: { zoneId: "aad9930b9d65bfc3a47abe3e97198baf" } });
new Route("support", { name: "support", domainId: domain.domainId, endpointId: 1 });
`;

/**
 * This package packed (`npm pack`, which builds it) and installed from the tarball into a
 * throwaway project beside its own @pulumi/pulumi, @pulumi/cloudflare and typescript.
 */
export async function installPackage(): Promise<InstalledPackage> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-bench-"));
  const { file } = await packTarball(REPO_ROOT, path.join(work, "packed"));
  const project = await createUserProject(path.join(work, "project"), "tarball", { tarball: file });
  await fs.writeFile(path.join(project.dir, "index.ts"), PROGRAM);
  await fs.writeFile(
    path.join(project.dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { module: "nodenext", target: "ES2022", types: ["node"], strict: true },
    }),
  );
  const { registrations } = await runUnderMocks(project.dir);
  const texts = Object.fromEntries(
    Object.keys(STORED_TYPES).map((type) => [
      type,
      registrations.find((r) => r.type === `pulumi-nodejs:dynamic/email-delivery:${type}`)!.inputs.__provider,
    ]),
  ) as Record<StoredType, string>;
  const fromProject = createRequire(path.join(project.dir, "/"));
  const providers = fromProject("pulumi-email-delivery/providers") as BenchProviders;
  return {
    dir: project.dir,
    providers,
    require: <T>(id: string) => fromProject(id) as T,
    texts,
    remove: () => fs.rm(work, { recursive: true, force: true }),
  };
}
