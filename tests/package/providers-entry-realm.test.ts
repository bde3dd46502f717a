import * as path from "node:path";
import { REPO_ROOT } from "../../packaging/clean-clone";

/**
 * `pulumi-email-delivery/providers` loaded by a test runner's registry (jest's, here) is the
 * modules as they are, in the runner's realm: its environment, mocks and copies apply, as before
 * the build bundled them. Only Node's own loader (the provider host, the kit's realm) runs the
 * bundle: tests/package/entry-points.test.ts shows that.
 */
it("under jest the built entry serves the unbundled providers, from jest's registry", () => {
  /* eslint-disable @typescript-eslint/no-require-imports -- the built files, as jest loads them */
  const entry = require(path.join(REPO_ROOT, "dist/provider/providers-entry.js")) as Record<string, unknown>;
  const unbundled = require(path.join(REPO_ROOT, "dist/provider/providers-module.js")) as Record<
    string,
    unknown
  >;
  /* eslint-enable @typescript-eslint/no-require-imports */
  for (const name of ["domainProvider", "routeProvider", "verificationProvider", "claimedRecordProvider"])
    expect(entry[name]).toBe(unbundled[name]);
});
