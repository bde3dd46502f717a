import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { IN_PROCESS } from "../../demo/in-process";
import { userCacheDir } from "../../provider/code-cache";
import { pulumiCliHere } from "../support/pulumi-cli";

/**
 * `npm run demo` where no Pulumi CLI can be had (no CLI on PATH, no network to fetch one): it
 * says so in one line with the install advice, then runs the root program in-process through the
 * test kit, preview then live, prints the result table, cleans up and exits 0, every line saying
 * which mode it is in. Where a CLI exists (the GitHub workflow installs one), this path cannot be
 * reached and the demo itself runs there instead.
 */
const cli = pulumiCliHere();
const title = cli.available
  ? `npm run demo without a Pulumi CLI — skipped: ${cli.reason}, so the no-CLI path cannot be reached`
  : "npm run demo without a Pulumi CLI";

(cli.available ? describe.skip : describe)(title, () => {
  let run: { code: number | null; stdout: string; stderr: string; elapsedMs: number };
  let tmp: string;

  beforeAll(async () => {
    // A temporary folder of its own: whatever the demo leaves behind would be found there.
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "demo-tmp-"));
    const started = Date.now();
    run = await new Promise((resolve) => {
      const child = spawn("npm", ["run", "--silent", "demo"], {
        cwd: path.resolve(__dirname, "../.."),
        env: { ...process.env, TMPDIR: tmp },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr, elapsedMs: Date.now() - started });
      });
    });
  }, 150_000);
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

  it("exits 0 within a minute", () => {
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(run.elapsedMs).toBeLessThan(60_000);
  });

  it("says in one line that there is no CLI, that this is not `pulumi up`, and how to get one", () => {
    const [first] = run.stdout.split("\n");
    expect(first).toMatch(/^No Pulumi CLI \(`pulumi` is not on PATH; .+\), so this is not `pulumi up`: /);
    expect(first).toContain("curl -fsSL https://get.pulumi.com | sh");
    expect(first).toContain("run `npm run demo` again");
  });

  it("marks every other line as in-process, and shows the domain verified with all four checks OK, its records and routes", () => {
    const lines = run.stdout.trimEnd().split("\n").slice(1);
    expect(lines.filter((line) => !line.startsWith(`${IN_PROCESS} `))).toEqual([]);
    const text = lines.map((line) => line.slice(IN_PROCESS.length + 1)).join("\n");
    expect(text).toMatch(/^Domain mail\.example\.com \(id \d+\): verified$/m);
    for (const check of ["spf", "dkim", "mx", "returnPath"])
      expect(text).toMatch(new RegExp(`^  ${check} +OK$`, "m"));
    expect(text).toMatch(/^ {2}CNAME psrp\.mail\.example\.com → rp\.postal\.example\.com$/m);
    expect(text).toMatch(/^ {2}support@ +\d+ +Endpoint +Quarantine$/m);
    expect(text).toMatch(/^cleaned up: \d+ resources deleted from the emulator$/m);
    expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m); // no stack trace
  });

  it("leaves no server and no temporary file behind", async () => {
    const emailApi = /email API (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stdout)![1];
    await expect(fetch(`${emailApi}/api/v1/domains/list`, { method: "POST" })).rejects.toThrow();
    // Only the providers' code cache (provider/code-cache.ts), kept on purpose for the next process.
    expect((await fs.readdir(tmp)).filter((name) => name !== path.basename(userCacheDir()))).toEqual([]);
  });
});
