import { spawn } from "node:child_process";
import * as path from "node:path";
import { REPO_ROOT } from "../packaging/clean-clone";
import type { BenchEmulator } from "./emulator-process";

export interface VerificationFigures {
  /** Seconds after create started at which the records were published (made valid); 0: before it started. */
  validAfterSeconds: number;
  pollIntervalSeconds: number;
  /** The wait's longest pause between polls, for the checked inputs (`maxPollIntervalSeconds`). */
  pollCapMs: number;
  /** Real time: the scenario waited on the wall clock (the wait's own timers, not a fake clock). */
  clock: "real";
  /** From create's start: when publishing finished (records valid) and when create returned. */
  validAtMs: number;
  returnedAtMs: number;
  /** returnedAtMs - validAtMs; the target is ≤ the poll cap. */
  delayMs: number;
  /** Polls the wait made: its progress lines (one per poll that did not pass) + the passing one. */
  polls: number;
  /** `domains/check` requests the email API received during create. */
  checkRequests: number;
  /** Other email API requests during create (the `domains/list` that names the domain in progress lines). */
  otherRequests: Record<string, number>;
  /** Requests to the Cloudflare stand-in: the records' creates (one per record). */
  recordRequests: number;
  /** When each check request arrived, from create's start. */
  checkTimesMs: number[];
  /** The pause before the passing poll (the interval in effect when the records became valid). */
  lastIntervalMs: number;
  verified: boolean;
}

/**
 * Verifications with the default poll settings (`pollIntervalSeconds` 5, `maxPollIntervalSeconds`
 * 5), each in a fresh Node process (bench/verification-scenario.ts, as each Pulumi command runs
 * the provider in a fresh process) against an emulator process of its own (so its request log is
 * that scenario's alone), all at once: the longest T sets the time the whole takes. Real time,
 * real timers: the wait's code runs as users get it, from the installed package.
 */
export async function measureVerifications(
  start: () => Promise<BenchEmulator>,
  projectDir: string,
  validAfter: number[],
): Promise<VerificationFigures[]> {
  const emulators = await Promise.all(validAfter.map(() => start()));
  try {
    return await Promise.all(validAfter.map((seconds, i) => runScenario(emulators[i], projectDir, seconds)));
  } finally {
    await Promise.all(emulators.map((emulator) => emulator.stop()));
  }
}

function runScenario(
  emulator: BenchEmulator,
  projectDir: string,
  validAfterSeconds: number,
): Promise<VerificationFigures> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(__dirname, "verification-scenario.ts")],
    {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        BENCH_SCENARIO: JSON.stringify({ env: emulator.env, projectDir, validAfterSeconds }),
      },
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    child.once("close", (code) => {
      const last = stdout.trim().split("\n").pop() ?? "";
      if (code === 0 && last.startsWith("{")) resolve(JSON.parse(last) as VerificationFigures);
      else
        reject(
          new Error(`verification scenario T = ${validAfterSeconds} s exited ${code}: ${stderr}${stdout}`),
        );
    });
  });
}
