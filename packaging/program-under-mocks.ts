import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { run } from "./commands";

/** A resource registration as the engine would receive it from the program. */
export interface ProgramRegistration {
  type: string;
  name: string;
  /** The inputs, `__provider` included for dynamic resources. */
  inputs: Record<string, unknown>;
}

/** What a program run under mocks registered, and the warnings it logged (`pulumi.log.warn`). */
export interface ProgramUnderMocks {
  registrations: ProgramRegistration[];
  warnings: string[];
}

/**
 * Runs a user's TypeScript program in a fresh `node` process in its project, loaded the way
 * Pulumi's Node.js language host loads it (its vendored ts-node, the project's own `typescript`
 * and `tsconfig.json`, type-checked), with `pulumi.runtime.setMocks` in place of the engine
 * (nothing is created: mocks answer every registration with its inputs). Returns every
 * registration, with the inputs Pulumi would store, e.g. each dynamic resource's `__provider`,
 * and every warning logged.
 */
export async function runUnderMocks(
  project: string,
  options: { program?: string; config?: Record<string, string>; projectName?: string } = {},
): Promise<ProgramUnderMocks> {
  // The runner lives outside the project (nothing is written there) and loads everything from it.
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), "program-under-mocks-"));
  const runner = path.join(folder, "run.js");
  await fs.writeFile(
    runner,
    runnerScript(options.program ?? "index.ts", options.config ?? {}, options.projectName ?? "user-project"),
  );
  try {
    const stdout = await run(process.execPath, [runner], { cwd: project, timeoutMs: 120_000 });
    return JSON.parse(stdout.slice(stdout.lastIndexOf("\n{") + 1)) as ProgramUnderMocks;
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}

function runnerScript(program: string, config: Record<string, string>, projectName: string): string {
  return `
const load = require("node:module").createRequire(process.cwd() + "/");
const pulumi = load("@pulumi/pulumi");
const tsutils = load("@pulumi/pulumi/tsutils");
// As @pulumi/pulumi/cmd/run does for a CommonJS TypeScript program.
const { tsnodeRequire, typescriptRequire } = tsutils.typeScriptRequireStrings();
load(tsnodeRequire).register({
  compiler: typescriptRequire,
  project: "tsconfig.json",
  compilerOptions: {
    target: "ES2020", module: "nodenext", moduleResolution: "nodenext", sourceMap: "true",
    ...tsutils.loadTypeScriptCompilerOptions("tsconfig.json"),
  },
});
const registrations = [];
// Without an engine, pulumi.log.warn prints "warning: [runtime] …" through console.warn.
const warnings = [];
const consoleWarn = console.warn;
console.warn = (...args) => { warnings.push(args.join(" ")); consoleWarn(...args); };
pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      registrations.push({ type: args.type, name: args.name, inputs: args.inputs });
      return { id: args.name + "-id", state: args.inputs };
    },
    // The zone reads (cloudflare.getDnsRecords) find an empty zone; nothing else is invoked.
    call: (args) => (args.token === "cloudflare:index/getDnsRecords:getDnsRecords" ? { results: [] } : {}),
  },
  ${JSON.stringify(projectName)},
  "test",
  true,
);
pulumi.runtime.setAllConfig(${JSON.stringify(config)}, []);
(async () => {
  await pulumi.runtime.runInPulumiStack(async () => { load(${JSON.stringify(`./${program}`)}); });
  // Registrations made inside apply() arrive later: wait until nothing is in flight, twice in a row.
  let quiet = 0, count = -1;
  while (quiet < 2) {
    await pulumi.runtime.waitForRPCs();
    await new Promise((resolve) => setImmediate(resolve));
    quiet = registrations.length === count ? quiet + 1 : 0;
    count = registrations.length;
  }
  process.stdout.write("\\n" + JSON.stringify({ registrations, warnings }));
})().catch((error) => { console.error(error && error.stack || error); process.exit(1); });
`;
}
