import * as path from "node:path";
import { run } from "../../packaging/commands";

/**
 * Under jest the providers (loaded as the provider host loads them, in Node's own realm) log to
 * another console than the program; under plain Node (`node --test`, docs/testing.md's second way)
 * there is one console. The program's own `console.log` must still print, not vanish into
 * `providerLogs`, and what a provider logs must land in `providerLogs`, not `programLogs`.
 */
it("under plain Node a program's console.log prints, and only providers' lines are providerLogs", async () => {
  const output = await run(process.execPath, [path.join(__dirname, "programs", "logging-node.js")], {
    cwd: path.join(__dirname, "..", ".."),
  });
  const lines = output.split("\n");
  expect(lines).toContain("program says hello");
  const result = JSON.parse(lines.find((line) => line.startsWith("RESULT "))!.slice("RESULT ".length)) as {
    providerLogs: string[];
    programLogs: string[];
    errors: unknown[];
  };
  expect(result.errors).toEqual([]);
  expect(result.providerLogs).toEqual([
    "provider check says hi",
    "info: [runtime] provider logs through pulumi",
  ]);
  expect(result.programLogs).toEqual(["info: [runtime] program plan"]);
}, 60_000);
