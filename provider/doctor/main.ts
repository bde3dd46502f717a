// The doctor command's work, run by bin.ts (from one bundled file where the build made it).
import { readFile } from "node:fs/promises";
import { text as streamText } from "node:stream/consumers";

import { runDoctor } from "./command";
import { printableLines } from "./printing";

runDoctor(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readText: (path) => (path === "-" ? streamText(process.stdin) : readFile(path, "utf8")),
  // Loaded only with --records, once the service has the domain: the diagnosis's DNS code is not
  // needed before. `require`: the module is CommonJS, which `import()` would read through Node's
  // ES module loader.
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
