import { execFile } from "node:child_process";

export interface RunOptions {
  cwd: string;
  /** Added to (and overriding) this process's environment. */
  env?: Record<string, string | undefined>;
  /** Sent on stdin. */
  input?: string;
  /** @default 600000 (an `npm install` on a cold cache) */
  timeoutMs?: number;
  /** Resolve with what it printed on stderr after its stdout. @default false */
  stderr?: boolean;
}

/** Runs a command to completion and returns its stdout; a failure carries the command and its stderr. */
export function run(command: string, args: string[], options: RunOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 600_000,
        maxBuffer: 256 << 20,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(options.stderr ? `${stdout}${stderr}` : stdout);
        // What it printed last on each stream: tsc reports on stdout, and a warning on stderr
        // (packaging/tsc.js's fallback) must not hide it.
        const tail = [stderr, stdout]
          .map((text) => `${text}`.trim())
          .filter(Boolean)
          .map((text) => text.split("\n").slice(-30).join("\n"))
          .join("\n");
        reject(
          new Error(
            `\`${[command, ...args].join(" ")}\` in ${options.cwd} failed: ${error.message}\n${tail}`,
          ),
        );
      },
    );
    // A command that never reads its input (git, npm) may exit before it is written: the pipe's
    // EPIPE says nothing the exit status does not, and unhandled it would fail the test run.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input ?? "");
  });
}

/** `npm` with the options every scripted install here uses: quiet, no audit, cache first. */
export function npm(args: string[], options: RunOptions): Promise<string> {
  return run("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], options);
}
