import { REPO_ROOT } from "../../packaging/clean-clone";
import { run } from "../../packaging/commands";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compiler } = require("../../packaging/tsc.js") as { compiler(): { tsc: string } };

/**
 * `npm test`'s type-check, as one of its files: tsc over everything tsconfig.json includes. Run as
 * a step before jest it held the whole suite for its 7–10 s on one core; here it runs beside the
 * other files. (ts-jest only transpiles; this is what checks the types.)
 */
it("tsc --noEmit passes over provider, emulator, testing, tests, bench, examples and demo", async () => {
  await run(process.execPath, [compiler().tsc, "--noEmit", "-p", "tsconfig.json"], {
    cwd: REPO_ROOT,
  });
}, 300_000);
