import { REPO_ROOT } from "../../packaging/clean-clone";
import { run } from "../../packaging/commands";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { scripts } = require("../../package.json") as { scripts: Record<string, string> };

/**
 * `npm test`'s type-check, as one of its files: `npm run typecheck` (tsc over everything
 * tsconfig.json includes), its command read from package.json so that the two never differ. Run as
 * a step before jest it held the whole suite for its 7–10 s on one core; here it runs beside the
 * other files. It is incremental: tsc keeps what it learned in node_modules/.cache and checks again
 * only what changed since, about a quarter of the CPU of a full check. (jest only transpiles;
 * this is what checks the types.)
 */
it("tsc --noEmit passes over provider, emulator, testing, tests, bench, examples and demo", async () => {
  const [node, script, ...args] = scripts.typecheck.split(" ");
  expect([node, script]).toEqual(["node", "packaging/tsc.js"]);
  await run(process.execPath, [script, ...args], { cwd: REPO_ROOT });
}, 300_000);
