import { readFileSync } from "node:fs";
import * as path from "node:path";

/** The README is for users and read in five minutes: guides go in docs/, internals in CONTRIBUTING. */
test("README.md is 250 lines at most", () => {
  const text = readFileSync(path.resolve(__dirname, "../../README.md"), "utf8");
  expect(text.split("\n").length - 1).toBeLessThanOrEqual(250);
});
