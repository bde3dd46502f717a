import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { REPO_ROOT } from "../packaging/clean-clone";
import { run } from "../packaging/commands";
import { startProviderHost, urnFor } from "../tests/support/provider-host";
import { STORED_TYPES, StoredType } from "./package";
import { median } from "./setup";

/** How a resource's provider is stored: this package's loader, or its code serialized by value (before the loader). */
export type TextForm = "loader" | "by value";

export interface ProviderTextFigures {
  type: StoredType;
  form: TextForm;
  textBytes: number;
  /** What the text adds to each resource's state: once in the inputs, once in the outputs, JSON-escaped. */
  storedBytes: number;
  /** Time the provider host takes to load the text (first call minus second), one figure per host. */
  loadMs: number[];
  loadMedianMs: number;
}

/** What one text adds to a resource's state (inputs and outputs each hold it as a JSON string). */
export function storedBytes(text: string): number {
  return 2 * Buffer.byteLength(JSON.stringify(text));
}

/**
 * The providers' code serialized by value, as `pulumi.dynamic.Resource` stored it before the
 * loader whenever the package was not under a `node_modules` folder (a local path, `npm link`,
 * this repository): `pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })`
 * in a program process of its own, with TypeScript loaded through the ts-node registration
 * Pulumi's language host performs (its vendored ts-node, this project's typescript and
 * tsconfig.json). Not in this process: under tsx, `got`'s ES modules are loaded as CommonJS files
 * that its package exports do not name, and the closure serializer refuses them.
 */
export async function serializeByValue(): Promise<Record<StoredType, string>> {
  // A program file, not `node -e`: under -e, `exports`, `module` and the built-in modules
  // (`http`, …) are globals, and the closure serializer leaves any global uncaptured.
  const script = `
    const load = require("node:module").createRequire(${JSON.stringify(path.join(REPO_ROOT, "package.json"))});
    const tsutils = load("@pulumi/pulumi/tsutils");
    const { tsnodeRequire, typescriptRequire } = tsutils.typeScriptRequireStrings();
    load(tsnodeRequire).register({
      compiler: typescriptRequire,
      transpileOnly: true,
      project: "tsconfig.json",
      compilerOptions: {
        target: "ES2020", module: "nodenext", moduleResolution: "nodenext", sourceMap: "true",
        ...tsutils.loadTypeScriptCompilerOptions("tsconfig.json"),
      },
    });
    const pulumi = load("@pulumi/pulumi");
    const providers = load("./provider/providers");
    (async () => {
      const out = {};
      for (const [type, name] of Object.entries(${JSON.stringify(STORED_TYPES)})) {
        out[type] = (await pulumi.runtime.serializeFunction(() => providers[name], { allowSecrets: true })).text;
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((error) => { console.error(error); process.exit(1); });`;
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), "bench-serialize-"));
  try {
    const file = path.join(folder, "program.js");
    await fs.writeFile(file, script);
    return JSON.parse(await run(process.execPath, [file], { cwd: REPO_ROOT })) as Record<StoredType, string>;
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/** Inputs each resource type's `check` accepts without asking the service. */
const VALID_INPUTS: Record<StoredType, Record<string, unknown>> = {
  Domain: { name: "timed.example.com" },
  DomainVerification: { domainId: 1 },
  Route: { name: "timed", domainId: 1, endpointId: 1 },
};

/**
 * Each text's size, and the time the real provider host takes to load it: in a host started in
 * the folder the form runs in (the loader loads the installed package from the project; the
 * serialized code needs its dependencies resolvable there), the first `check` of each resource
 * type (the host deserializes the text and configures the provider) minus a second one. Types
 * are loaded in the order of STORED_TYPES, as a refresh would meet them; `runs` hosts per form.
 */
export async function measureProviderTexts(
  forms: { form: TextForm; texts: Record<StoredType, string>; cwd: string }[],
  runs = 3,
): Promise<ProviderTextFigures[]> {
  const figures: ProviderTextFigures[] = [];
  for (const { form, texts, cwd } of forms) {
    const loadMs: Record<string, number[]> = {};
    for (let run = 0; run < runs; run++) {
      const host = await startProviderHost({ cwd });
      try {
        await host.configure({});
        for (const type of Object.keys(STORED_TYPES) as StoredType[]) {
          const urn = urnFor(`email-delivery:${type}`, "timed");
          const check = async () => {
            const start = performance.now();
            const { failures } = await host.check(
              urn,
              {},
              { ...VALID_INPUTS[type], __provider: texts[type] },
            );
            if (failures.length) throw new Error(`${type}: ${JSON.stringify(failures)}`);
            return performance.now() - start;
          };
          const first = await check();
          (loadMs[type] ??= []).push(first - (await check()));
        }
      } finally {
        await host.stop();
      }
    }
    for (const type of Object.keys(STORED_TYPES) as StoredType[]) {
      figures.push({
        type,
        form,
        textBytes: Buffer.byteLength(texts[type]),
        storedBytes: storedBytes(texts[type]),
        loadMs: loadMs[type],
        loadMedianMs: median(loadMs[type]),
      });
    }
  }
  return figures;
}
