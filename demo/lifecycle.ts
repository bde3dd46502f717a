import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import type { Emulator } from "../emulator";
import { createUserProject, packTarball } from "../packaging/user-project";

/** The repository root: its root Pulumi project runs the basic example. */
export const REPO_ROOT = path.resolve(__dirname, "..");

export interface DemoStack {
  stack: Stack;
  name: string;
  /** The throwaway project the stack runs in. */
  projectDir: string;
  /** Removes the stack, the project and the temporary backend. */
  dispose(): Promise<void>;
}

/** The root project's files a demo project holds: [in this repository, in the project]. */
const DEMO_FILES = [
  ["Pulumi.yaml", "Pulumi.yaml"],
  ["Pulumi.local.yaml", "Pulumi.local.yaml"],
  ["examples/basic/index.ts", "index.ts"],
  ["examples/basic/tsconfig.json", "tsconfig.json"],
] as const;

/**
 * A new project in `dir` that runs the root project's program the way a user runs it: this package
 * packed (`npm pack`, which builds it) and installed from the tarball beside the project's own
 * @pulumi/pulumi, @pulumi/cloudflare and typescript, with the root project's `Pulumi.yaml` and
 * `Pulumi.local.yaml`, and the basic example as `index.ts`. Nothing in the repository is written
 * but `dist/`, which `npm pack` builds (unless `build` is false: then it packs `dist/` as it is).
 * Given a `tarball` already packed, it installs that one instead.
 */
export async function prepareDemoProject(
  dir: string,
  options: { build?: boolean; tarball?: string } = {},
): Promise<string> {
  const tarball = options.tarball ?? (await packTarball(REPO_ROOT, path.join(dir, "packed"), options)).file;
  const project = await createUserProject(path.join(dir, "project"), "tarball", { tarball });
  for (const [from, to] of DEMO_FILES) {
    await fs.copyFile(path.join(REPO_ROOT, from), path.join(project.dir, to));
  }
  return project.dir;
}

/**
 * A throwaway stack in a project from `prepareDemoProject`, with a local file backend in a
 * temporary folder, a fixed passphrase, and the `local` stack's settings with the emulator's
 * actual addresses.
 */
export async function openDemoStack(
  cli: PulumiCommand,
  emulator: Emulator,
  options: { log?: (line: string) => void; build?: boolean } = {},
): Promise<DemoStack> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-demo-"));
  try {
    options.log?.(
      "Packing the package and installing the tarball into a throwaway project, as a user would…",
    );
    const projectDir = await prepareDemoProject(work, { build: options.build });
    const backend = path.join(work, "backend");
    await fs.mkdir(backend);
    const name = `demo-${process.pid}-${Date.now().toString(36)}`;
    const envVars: Record<string, string> = {
      PULUMI_BACKEND_URL: `file://${backend}`,
      PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "email-delivery-demo",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      EMAIL_DELIVERY_API_KEY: emulator.emailApi.apiKey,
      CLOUDFLARE_API_TOKEN: emulator.cloudflare.apiToken,
    };
    const stack = await LocalWorkspace.createOrSelectStack(
      { stackName: name, workDir: projectDir },
      { pulumiCommand: cli, envVars },
    );
    const workspace = stack.workspace as LocalWorkspace;
    const local = await workspace.stackSettings("local");
    const config: Record<string, { value: string; secret?: boolean }> = {};
    for (const [key, value] of Object.entries(local.config ?? {})) config[key] = { value: String(value) };
    config["emailDelivery:baseUrl"] = { value: emulator.emailApi.url };
    config["emailDelivery:dnsResolver"] = { value: emulator.dns.address };
    config["cloudflare:baseUrl"] = { value: emulator.cloudflare.url };
    config["email-delivery:cloudflareZoneId"] = { value: emulator.cloudflare.zones[0].id };
    config["email-delivery:endpointId"] = { value: String(emulator.state.endpoints[0].id) };
    await stack.setAllConfig(config);

    return {
      stack,
      name,
      projectDir,
      dispose: async () => {
        await workspace.removeStack(name, { force: true }).catch(() => undefined);
        await fs.rm(work, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await fs.rm(work, { recursive: true, force: true });
    throw error;
  }
}

/** The resources a preview would change, e.g. `{ create: 9 }`; empty when nothing changes. */
export function changesIn(summary: Record<string, number | undefined> | undefined): Record<string, number> {
  return Object.fromEntries(
    Object.entries(summary ?? {}).filter(([kind, count]) => kind !== "same" && (count ?? 0) > 0),
  ) as Record<string, number>;
}

interface DemoOutputs {
  domainName?: string;
  domainId?: number;
  verified?: boolean;
  checks?: Record<string, string | null>;
  dnsRecords?: string[];
  routes?: { address: string; id: number; mode: string; spamMode: string }[];
}

/** A table of the domain's checks, the records published and the routes, from the stack's outputs. */
export function outputsTable(outputs: Record<string, { value: unknown }>): string {
  const value = Object.fromEntries(
    Object.entries(outputs).map(([key, output]) => [key, output.value]),
  ) as DemoOutputs;
  const lines = [
    `Domain ${value.domainName} (id ${value.domainId}): ${value.verified ? "verified" : "NOT verified"}`,
    ...table(
      ["check", "status"],
      Object.entries(value.checks ?? {}).map(([check, status]) => [check, String(status ?? "not checked")]),
    ),
    "Records published:",
    ...(value.dnsRecords ?? []).map((record) => `  ${record}`),
    "Routes:",
    ...table(
      ["address", "id", "mode", "spam mode"],
      (value.routes ?? []).map((route) => [route.address, String(route.id), route.mode, route.spamMode]),
    ),
  ];
  return lines.join("\n");
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    `  ${cells.map((cell, i) => cell.padEnd(widths[i])).join("   ")}`.trimEnd();
  return [line(header), ...rows.map(line)];
}
