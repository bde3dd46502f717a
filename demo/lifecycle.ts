import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, Stack } from "@pulumi/pulumi/automation";
import type { Emulator } from "../emulator";

/** The repository root: the root Pulumi project (its program is examples/basic). */
export const PROJECT_DIR = path.resolve(__dirname, "..");

export interface DemoStack {
  stack: Stack;
  name: string;
  /** Removes the stack, its settings file and the temporary backend. */
  dispose(): Promise<void>;
}

/**
 * A throwaway stack of the root project against a running emulator: a local file backend in a
 * temporary folder, a fixed passphrase, and the `local` stack's settings with the emulator's
 * actual addresses. The committed stack files are never written.
 */
export async function openDemoStack(cli: PulumiCommand, emulator: Emulator): Promise<DemoStack> {
  const backend = await fs.mkdtemp(path.join(os.tmpdir(), "email-delivery-demo-"));
  const name = `demo-${process.pid}-${Date.now().toString(36)}`;
  const envVars: Record<string, string> = {
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "email-delivery-demo",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    // The program imports "pulumi-email-delivery"; in this repo that is the sources.
    NODE_OPTIONS: [process.env.NODE_OPTIONS, "--conditions=source"].filter(Boolean).join(" "),
    PULUMI_NODEJS_TRANSPILE_ONLY: "true", // `npm run typecheck` checks types; skip it here
    EMAIL_DELIVERY_API_KEY: emulator.emailApi.apiKey,
    CLOUDFLARE_API_TOKEN: emulator.cloudflare.apiToken,
  };
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: name, workDir: PROJECT_DIR },
    { pulumiCommand: cli, envVars },
  );
  const workspace = stack.workspace as LocalWorkspace;
  const local = await workspace.stackSettings("local");
  const config: Record<string, { value: string; secret?: boolean }> = {};
  for (const [key, value] of Object.entries(local.config ?? {})) config[key] = { value: String(value) };
  config["emailDelivery:baseUrl"] = { value: emulator.emailApi.url };
  config["cloudflare:baseUrl"] = { value: emulator.cloudflare.url };
  config["email-delivery:cloudflareZoneId"] = { value: emulator.cloudflare.zones[0].id };
  config["email-delivery:endpointId"] = { value: String(emulator.state.endpoints[0].id) };
  await stack.setAllConfig(config);

  return {
    stack,
    name,
    dispose: async () => {
      await workspace.removeStack(name, { force: true }).catch(() => undefined);
      await fs.rm(path.join(PROJECT_DIR, `Pulumi.${name}.yaml`), { force: true });
      await fs.rm(backend, { recursive: true, force: true });
    },
  };
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
  routes?: { address: string; id: number; mode: string; spamMode: string }[];
}

/** A table of the domain's checks and its routes, from the stack's outputs. */
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
