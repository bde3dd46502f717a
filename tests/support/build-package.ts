import { execFileSync } from "node:child_process";
import * as path from "node:path";

/**
 * jest `globalSetup`. Tests that run dynamic resources the way Pulumi does (the provider host, the
 * live mocks, fresh processes) go through each resource's stored provider loader, which finds this
 * package by name: its build in `dist/`, as for a user. Build it from the current sources first,
 * so no test runs stale code.
 */
export default function buildPackage(): void {
  execFileSync("npm", ["run", "--silent", "build"], {
    cwd: path.resolve(__dirname, "../.."),
    stdio: "inherit",
  });
}
