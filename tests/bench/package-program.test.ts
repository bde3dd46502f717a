import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { PROGRAM } from "../../bench/package";
import { useEmulator } from "../support/emulator";
import { runProgram } from "../../testing";

/**
 * `npm run bench` starts by running this program in a project with the package installed, to read
 * the provider text each dynamic resource type stores: every type must register (a preview here,
 * the package by name from the sources).
 */
describe("bench: the program that reads the stored provider texts", () => {
  // Its zone is the emulator's example.com, which the Domain reads before it publishes.
  const emulator = useEmulator();

  it("registers a Domain, its DomainVerification and a Route, without errors", async () => {
    const folder = await fs.mkdtemp(path.join(os.tmpdir(), "bench-program-"));
    const file = path.join(folder, "index.ts");
    await fs.writeFile(file, PROGRAM);
    try {
      const run = await runProgram(
        () => {
          jest.resetModules();
          // The program runs when it is loaded, so it is required inside the mocked run.
          // eslint-disable-next-line @typescript-eslint/no-require-imports
          return require(file) as Record<string, never>;
        },
        { mode: "preview", emulator: emulator() },
      );
      expect(run.errors.map((error) => error.message)).toEqual([]);
      const types = run.registrations
        .map((registration) => registration.type)
        .filter((type) => type.startsWith("pulumi-nodejs:dynamic/"));
      // The records known before the domain exists (SPF, DKIM, return path) are the package's own.
      expect(types.sort()).toEqual([
        "pulumi-nodejs:dynamic/email-delivery:ClaimedDnsRecord",
        "pulumi-nodejs:dynamic/email-delivery:ClaimedDnsRecord",
        "pulumi-nodejs:dynamic/email-delivery:ClaimedDnsRecord",
        "pulumi-nodejs:dynamic/email-delivery:Domain",
        "pulumi-nodejs:dynamic/email-delivery:DomainVerification",
        "pulumi-nodejs:dynamic/email-delivery:Route",
      ]);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  });
});
