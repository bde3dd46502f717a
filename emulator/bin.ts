#!/usr/bin/env node
// `pulumi-email-delivery-emulator`: the package's command for the local emulator (see cli.ts).
import { main } from "./cli";

main(process.argv.slice(2));
