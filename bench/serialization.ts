import { execFile } from "node:child_process";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { median } from "./setup";

/** The repository root: where a Pulumi project (and the provider host) runs. */
export const REPO_ROOT = path.resolve(__dirname, "..");

export const PROVIDER_NAMES = ["domainProvider", "routeProvider", "verificationProvider"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface SerializedProvider {
  provider: ProviderName;
  text: string;
  /** `serializeFunction` time in the program process. */
  serializeMs: number;
}

export interface SerializationFigures {
  provider: ProviderName;
  textBytes: number;
  serializeMs: number;
  /** `require("require-from-string")(text).handler()` in a fresh `node`, one figure per process. */
  evaluateMs: number[];
  evaluateMedianMs: number;
}

/**
 * Serializes the providers the way a TypeScript Pulumi program does: in a `node` process of its
 * own, in the project folder, with TypeScript loaded through the ts-node registration Pulumi's
 * language host performs (its vendored ts-node, the project's typescript and tsconfig.json),
 * then `pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })`, which is what
 * `pulumi.dynamic.Resource` puts in `__provider`. (Not in this process: under tsx, `got`'s ES
 * modules are loaded as CommonJS files that its package exports do not name, and the closure
 * serializer refuses them.) TypeScript's emit is the same as under Pulumi: CommonJS from this
 * tsconfig.json, transpile only.
 */
export async function serializeProviders(): Promise<SerializedProvider[]> {
  // A program file, not `node -e`: under -e, `exports`, `module` and the built-in modules
  // (`http`, …) are globals, and the closure serializer leaves any global uncaptured. The file
  // lives in a temporary folder and loads everything from the project folder.
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
      const out = [];
      for (const name of ${JSON.stringify(PROVIDER_NAMES)}) {
        const start = performance.now();
        const { text } = await pulumi.runtime.serializeFunction(() => providers[name], { allowSecrets: true });
        out.push({ provider: name, text, serializeMs: performance.now() - start });
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((error) => { console.error(error); process.exit(1); });`;
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), "bench-serialize-"));
  try {
    const file = path.join(folder, "program.js");
    await fs.writeFile(file, script);
    return JSON.parse(await runNode([file], "")) as SerializedProvider[];
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

/** Times evaluating a provider's text in `runs` fresh `node` processes (cwd: the project folder). */
export async function measureEvaluation(text: string, runs = 3): Promise<number[]> {
  const script = `
    const text = require("node:fs").readFileSync(0, "utf8");
    const start = performance.now();
    const provider = require("require-from-string")(text).handler();
    const ms = performance.now() - start;
    if (typeof provider.create !== "function" || typeof provider.read !== "function") {
      console.error("the evaluated text is not a provider"); process.exit(1);
    }
    process.stdout.write(JSON.stringify(ms));`;
  const times: number[] = [];
  for (let run = 0; run < runs; run++) times.push(JSON.parse(await runNode(["-e", script], text)) as number);
  return times;
}

export async function measureSerialization(
  serialized: SerializedProvider[],
  runs = 3,
): Promise<SerializationFigures[]> {
  const figures: SerializationFigures[] = [];
  for (const { provider, text, serializeMs } of serialized) {
    const evaluateMs = await measureEvaluation(text, runs);
    figures.push({
      provider,
      textBytes: Buffer.byteLength(text),
      serializeMs,
      evaluateMs,
      evaluateMedianMs: median(evaluateMs),
    });
  }
  return figures;
}

/** `node ...args` in the project folder with `input` on stdin; asynchronous (the emulator may answer). */
function runNode(args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      args,
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH }, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    );
    child.stdin!.end(input);
  });
}
