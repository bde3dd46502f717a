#!/usr/bin/env node
// `pulumi-email-delivery`: the package's command (`doctor <domain>`, see command.ts).
import { readFile } from "node:fs/promises";
import * as nodeModule from "node:module";
import { text as streamText } from "node:stream/consumers";

// Node 22.1+ keeps the compiled code of the modules it loads (got's and zod's are most of the
// command's start-up) in a cache under the system's temporary folder, as TypeScript's and npm's
// own commands do; Node 20 has no such cache, and this does nothing there.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// Required after the cache is on, so the command's own modules are in it too.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the line above on purpose
const { runDoctor } = require("./command") as typeof import("./command");
// eslint-disable-next-line @typescript-eslint/no-require-imports -- as the line above
const { printableLines } = require("./printing") as typeof import("./printing");

runDoctor(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readText: (path) => (path === "-" ? streamText(process.stdin) : readFile(path, "utf8")),
  // Loaded only with --records, once the service has the domain: the diagnosis's DNS code is not
  // needed before. `require`, as the two above: the module is CommonJS, which `import()` would read
  // through Node's ES module loader.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  examine: async (request) => (require("./diagnosis") as typeof import("./diagnosis")).examineDomain(request),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    process.stderr.write(printableLines(`pulumi-email-delivery: ${error.message}\n`));
    process.exitCode = 2;
  },
);
