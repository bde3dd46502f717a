import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { IN_PROCESS, runInProcess } from "../../demo/in-process";

/**
 * The in-process demo with a broken stack file (Pulumi.local.yaml, which a user edits to try
 * their own settings): it must say, as every failure of that run, in a marked line naming the
 * file, and exit 1 with the emulator stopped. It threw instead, so `npm run demo` ended on
 * "demo failed: deficient indentation (2:1)" or "Cannot convert undefined or null to object",
 * neither naming the file nor marked as the in-process run.
 */

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "demo-stack-file-"));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

it.each([
  ["not YAML", "config: [unclosed\n"],
  ["no config map", "nothing: here\n"],
  ["config not a map", "config: 7\n"],
])("%s: one marked line naming the file, exit 1, emulator stopped", async (_case, text) => {
  const file = path.join(dir, "Pulumi.local.yaml");
  await fs.writeFile(file, text);
  const lines: string[] = [];
  const code = await runInProcess((line) => lines.push(line), file).catch((error: Error) => error.message);
  expect(code).toBe(1);
  expect(lines.every((line) => line.startsWith(`${IN_PROCESS} `))).toBe(true);
  expect(lines.filter((line) => line.includes("failed:"))).toEqual([
    expect.stringMatching(new RegExp(`failed: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: .+`)),
  ]);
  const emailApi = /email API (http:\/\/127\.0\.0\.1:\d+)/.exec(lines.join("\n"))![1];
  await expect(fetch(`${emailApi}/api/v1/domains/list`, { method: "POST" })).rejects.toThrow();
});
