import { ChildProcess, spawn } from "node:child_process";
import * as readline from "node:readline";

/** A long-running command and its stdout lines as they come, to wait on events rather than time. */
export interface RunningCommand {
  child: ChildProcess;
  lines: string[];
  /** Resolves at the first line (already printed or to come) matching `match`. */
  waitFor(match: RegExp): Promise<string>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startCommand(command: string, args: string[], cwd: string): RunningCommand {
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "inherit"] });
  const lines: string[] = [];
  let waiting: { match: RegExp; resolve: (line: string) => void }[] = [];
  readline.createInterface({ input: child.stdout! }).on("line", (line) => {
    lines.push(line);
    waiting = waiting.filter((wait) => !(wait.match.test(line) && (wait.resolve(line), true)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    lines,
    waitFor: (match) => {
      const seen = lines.find((line) => match.test(line));
      return seen !== undefined
        ? Promise.resolve(seen)
        : new Promise((resolve) => waiting.push({ match, resolve }));
    },
    stop: (signal = "SIGINT") => {
      child.kill(signal);
      return exited;
    },
  };
}

/** The emulator command's flags for every port a free one, as a test's emulator must. */
export const FREE_PORTS = ["--email-port", "0", "--cloudflare-port", "0", "--dns-port", "0"];

/** The `KEY=value` lines the command prints, as an object. */
export function envSettings(lines: string[]): Record<string, string> {
  return Object.fromEntries(
    lines
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}
