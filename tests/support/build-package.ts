import * as path from "node:path";

/**
 * jest `globalSetup`. Tests that run dynamic resources the way Pulumi does (the provider host, the
 * live mocks, fresh processes) go through each resource's stored provider loader, which finds this
 * package by name: its build in `dist/`, as for a user. Build it from the current sources first,
 * so no test runs stale code, unless `dist/` was built from exactly these sources (its stamp).
 */
export default function buildPackage(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { build, buildIsCurrent } = require(path.resolve(__dirname, "../../packaging/build.js")) as {
    build(): void;
    buildIsCurrent(): boolean;
  };
  if (!buildIsCurrent()) build();
}
