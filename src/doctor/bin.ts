#!/usr/bin/env node
// `pulumi-email-delivery`: the package's command (`doctor <domain>`, see command.ts).
import { runDoctor } from "./command";

runDoctor(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: Error) => {
    process.stderr.write(`pulumi-email-delivery: ${error.message}\n`);
    process.exitCode = 2;
  },
);
