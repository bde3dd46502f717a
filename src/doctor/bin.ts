#!/usr/bin/env node
// `pulumi-email-delivery`: the package's command (`doctor <domain>`, see command.ts).
import { readFile } from "node:fs/promises";
import { text as streamText } from "node:stream/consumers";
import { runDoctor } from "./command";

runDoctor(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readText: (path) => (path === "-" ? streamText(process.stdin) : readFile(path, "utf8")),
  // Loaded only when needed: it brings the DNS code (and @pulumi/pulumi's log) along.
  diagnose: async (request) => (await import("./diagnosis.js")).diagnoseChecks(request),
  judge: async (request) => (await import("./diagnosis.js")).judgeDomain(request),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    process.stderr.write(`pulumi-email-delivery: ${error.message}\n`);
    process.exitCode = 2;
  },
);
