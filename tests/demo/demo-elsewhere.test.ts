import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { IN_PROCESS } from "../../demo/in-process";
import { userCacheDir } from "../../provider/code-cache";
import { pulumiCliHere } from "../support/pulumi-cli";

/**
 * The demo's launcher run from another folder than the repository (`node path/to/demo/launch.js`),
 * without a Pulumi CLI: the in-process run must work as from the repository. It failed every
 * resource ("could not be loaded from <that folder>": the kit ran the providers from the current
 * folder, not the project's), then exited 1.
 */
const cli = pulumiCliHere();
(cli.available ? it.skip : it)(
  "node demo/launch.js from another folder, without a Pulumi CLI: the in-process run passes and cleans up",
  async () => {
    const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), "demo-elsewhere-"));
    try {
      const outcome = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, [path.resolve(__dirname, "../../demo/launch.js")], {
          cwd: elsewhere,
          env: { ...process.env, TMPDIR: elsewhere },
        });
        let stdout = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
        const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
        child.on("close", (code) => {
          clearTimeout(timer);
          resolve({ code, stdout });
        });
      });
      const failures = outcome.stdout.split("\n").filter((line) => line.startsWith(`${IN_PROCESS} failed:`));
      expect({ code: outcome.code, failures }).toEqual({ code: 0, failures: [] });
      expect(outcome.stdout).toMatch(/cleaned up: \d+ resources deleted from the emulator$/m);
      // Only the providers' code cache (provider/code-cache.ts), kept on purpose for the next process.
      expect((await fs.readdir(elsewhere)).filter((name) => name !== path.basename(userCacheDir()))).toEqual(
        [],
      );
    } finally {
      await fs.rm(elsewhere, { recursive: true, force: true });
    }
  },
  150_000,
);
