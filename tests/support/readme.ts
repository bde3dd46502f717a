import { readFileSync } from "node:fs";
import * as path from "node:path";

/**
 * The fenced code block of README.md whose info string is `info` (e.g. "ts index.ts"), so tests
 * run exactly what the README shows.
 */
export function readmeBlock(info: string): string {
  return documentBlock("README.md", info);
}

/** The fenced code block whose info string is `info` in `document` (a path from the repository's root). */
export function documentBlock(document: string, info: string): string {
  const text = readFileSync(path.resolve(__dirname, "../..", document), "utf8");
  const fence = "```";
  const start = text.indexOf(`\n${fence}${info}\n`);
  if (start < 0) throw new Error(`${document} has no \`${fence}${info}\` block`);
  const body = start + fence.length + info.length + 2;
  return text.slice(body, text.indexOf(`\n${fence}\n`, body) + 1);
}
