import { spawn } from "node:child_process";
import * as dgram from "node:dgram";
import { once } from "node:events";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import { REPO_ROOT } from "../../packaging/clean-clone";
import { FREE_PORTS } from "../support/command";

/**
 * The emulator's command (as installed: dist/emulator/bin.js) refuses a number flag it cannot use
 * (not a number, or a DKIM key size RSA refuses), as it refuses a bad port, `--fault` or
 * `--rate-limit`: one line naming the flag, exit 1, before any port opens. `--dkim-bits abc`
 * started, and every `domains/create` then answered Rails' "Internal Server Error";
 * `--fault-seed abc` started with a seed of 0 (the run-time `PUT /__emulator/faults` refuses a
 * seed that is not a whole number). Likewise a flag whose value the emulator cannot use at all.
 */

const BIN = `${REPO_ROOT}/dist/emulator/bin.js`;

interface Outcome {
  /** Exit code, or "started" when it printed its ready line (it is then stopped). */
  code: number | null | "started";
  stderr: string;
}

function start(args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...FREE_PORTS, ...args], { cwd: REPO_ROOT });
    let stdout = "";
    let stderr = "";
    let started = false;
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
      if (!started && /^# ready/m.test(stdout)) {
        started = true;
        child.kill("SIGINT");
      }
    });
    child.on("exit", (code) => resolve({ code: started ? "started" : code, stderr }));
  });
}

describe("the emulator command refuses a number flag that is not a number it can use", () => {
  it.each([
    [["--dkim-bits", "abc"], "--dkim-bits"],
    [["--dkim-bits", "100"], "--dkim-bits"],
    [["--fault-seed", "abc"], "--fault-seed"],
    [["--fault-seed", "1.5"], "--fault-seed"],
    // Accepted, then every domains/check a 500 (the resolver), or no request ever authenticated (an
    // empty key or token, which reads as none), or a zone with no name.
    [["--resolver", "garbage"], "--resolver"],
    [["--api-key="], "--api-key"],
    [["--cloudflare-token="], "--cloudflare-token"],
    [["--zone="], "--zone"],
    // No quoting writes it for both an env file and sh (refused by startEmulator as `masterKey`).
    [["--master-key", "it's $HOME"], "--master-key"],
  ])("%j: one line naming the flag, exit 1", async (args, flag) => {
    const outcome = await start(args);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr.trimEnd().split("\n")).toEqual([expect.stringContaining(`emulator: ${flag}`)]);
  });
});

describe("the emulator command with a port already in use", () => {
  // Another emulator (or anything) on the port: the message says which flag's port, and how on.
  it.each([
    ["--email-port", "tcp"],
    ["--cloudflare-port", "tcp"],
    ["--dns-port", "udp"],
  ] as const)("%s: one line naming the port and the flag, exit 1", async (flag, protocol) => {
    const holder =
      protocol === "tcp"
        ? net.createServer().listen(0, "127.0.0.1")
        : dgram.createSocket("udp4").bind(0, "127.0.0.1");
    await once(holder, "listening");
    const port = (holder.address() as AddressInfo).port;
    try {
      const outcome = await start([flag, String(port)]);
      expect(outcome.code).toBe(1);
      expect(outcome.stderr.trimEnd().split("\n")).toEqual([
        expect.stringMatching(new RegExp(`^emulator: .*port ${port}.*${flag}.*in use.*0 for a free one`)),
      ]);
    } finally {
      holder.close();
    }
  });
});
