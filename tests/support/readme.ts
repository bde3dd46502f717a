import { readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * The fenced code block of README.md whose info string is `info` (e.g. "ts index.ts"), so tests
 * run exactly what the README shows.
 */
export function readmeBlock(info: string): string {
  const readme = readFileSync(path.resolve(__dirname, "../../README.md"), "utf8");
  const fence = "```";
  const start = readme.indexOf(`\n${fence}${info}\n`);
  if (start < 0) throw new Error(`README.md has no \`${fence}${info}\` block`);
  const body = start + fence.length + info.length + 2;
  return readme.slice(body, readme.indexOf(`\n${fence}\n`, body) + 1);
}
