import { ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";

const REPO_ROOT = path.resolve(__dirname, "../..");

/** The emulator's command as a child process of its own, as a user starts it. */
export interface EmulatorProcess {
  child: ChildProcess;
  /** The env lines it printed, by name (`EMAIL_DELIVERY_BASE_URL`, …). */
  env: Record<string, string>;
  /** Sends SIGKILL (no handler runs, nothing is flushed) and waits until the process is gone. */
  kill(): Promise<void>;
  /** Sends SIGTERM (a clean stop) and waits until the process is gone. */
  stop(): Promise<void>;
}

/** How a start ended: running (it printed its ready line), or exited first. */
export type EmulatorStart =
  | { kind: "running"; emulator: EmulatorProcess }
  | { kind: "exited"; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/**
 * Starts the package's command (`pulumi-email-delivery-emulator`: dist/emulator/bin.js, built
 * from these sources by the suite's setup) on free ports with `args` added, and waits until it
 * prints its ready line or exits, whichever comes first. It runs emulator/cli.ts as
 * `npm run emulator` does, without tsx's 0.7 s or so of CPU per start.
 */
export function startEmulatorProcess(args: string[]): Promise<EmulatorStart> {
  const child = spawn(
    process.execPath,
    ["dist/emulator/bin.js", "--email-port", "0", "--cloudflare-port", "0", "--dns-port", "0", ...args],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signalled = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  return new Promise((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
      if (!/^# ready/m.test(stdout)) return;
      const env = Object.fromEntries(
        stdout
          .split("\n")
          .filter((line) => /^[A-Z_0-9]+=/.test(line))
          .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
      );
      resolve({
        kind: "running",
        emulator: { child, env, kill: () => signalled("SIGKILL"), stop: () => signalled("SIGTERM") },
      });
    });
    // "close", not "exit": by then all of its output has been read.
    child.once("close", (code, signal) => resolve({ kind: "exited", code, signal, stdout, stderr }));
  });
}
