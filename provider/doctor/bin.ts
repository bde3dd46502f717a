#!/usr/bin/env node
// `pulumi-email-delivery`: the package's command (`doctor <domain>`, see command.ts; main.ts runs it).
// The build makes main.js and all it loads, got and zod included, one file (command.bundle.js,
// packaging/bundles.js), compiled here from the code cache of the last run: Node then reads
// one file instead of about 200 and compiles almost nothing, which halves the command's start-up.
// A build that could not bundle (no esbuild for the platform) runs main.js as it is.
import { existsSync } from "node:fs";
import { join } from "node:path";

import { runWithCodeCache } from "../code-cache";

const bundle = join(__dirname, "command.bundle.js");
if (existsSync(bundle)) runWithCodeCache(bundle);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the unbundled command, loaded only without a bundle
else require("./main");
