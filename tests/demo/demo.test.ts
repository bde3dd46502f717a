import { spawn } from "node:child_process";
import * as path from "node:path";
import { pulumiCliHere } from "../support/pulumi-cli";

/**
 * `npm run demo` where no Pulumi CLI can be had: it must stop at once with a message saying how
 * to install one; no hang, no stack trace. Where a CLI exists (the GitHub workflow installs one),
 * this path cannot be reached and the demo itself runs there instead.
 */
const cli = pulumiCliHere();
const title = cli.available
  ? `npm run demo without a Pulumi CLI — skipped: ${cli.reason}, so the no-CLI path cannot be reached`
  : "npm run demo without a Pulumi CLI";

(cli.available ? describe.skip : describe)(title, () => {
  it("exits non-zero within 10 seconds, saying how to install the CLI", async () => {
    const started = Date.now();
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      const child = spawn("npm", ["run", "--silent", "demo"], { cwd: path.resolve(__dirname, "../..") });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      child.on("close", (exitCode) => {
        clearTimeout(timer);
        resolve({ code: exitCode, stdout, stderr });
      });
    });
    const elapsed = Date.now() - started;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull(); // it ended by itself
    expect(elapsed).toBeLessThan(10_000);
    expect(stderr).toContain(
      "No Pulumi CLI: `pulumi` is not on PATH; it cannot be downloaded either: get.pulumi.com does not resolve (no internet?).",
    );
    expect(stderr).toContain("curl -fsSL https://get.pulumi.com | sh");
    expect(stderr).toContain("then run `npm run demo` again");
    expect(`${stdout}\n${stderr}`).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m); // no stack trace
  });
});
