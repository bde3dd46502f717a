import * as os from "node:os";
import { run } from "../../packaging/commands";

describe("run", () => {
  it("ignores a command that exits without reading its input (EPIPE is not an error of the run)", async () => {
    // More than a pipe holds: the write is still under way when `true` has exited.
    await expect(run("true", [], { cwd: os.tmpdir(), input: "x".repeat(4 << 20) })).resolves.toBe("");
  });

  it("reports a failing command with its stderr", async () => {
    await expect(run("sh", ["-c", "echo broken >&2; exit 3"], { cwd: os.tmpdir() })).rejects.toThrow(
      /`sh -c .*` in .* failed: .*\nbroken/s,
    );
  });

  it("reports a failing command that writes only to stdout (as tsc does) with its stdout", async () => {
    await expect(
      run("sh", ["-c", "echo 'a.ts(1,1): error TS2322'; exit 2"], { cwd: os.tmpdir() }),
    ).rejects.toThrow(/failed: .*\na\.ts\(1,1\): error TS2322/s);
  });

  it("reports both streams when a command warns on stderr and reports on stdout", async () => {
    await expect(
      run("sh", ["-c", "echo 'Warning: slower compiler' >&2; echo 'a.ts(1,1): error TS2322'; exit 2"], {
        cwd: os.tmpdir(),
      }),
    ).rejects.toThrow(/failed: .*\nWarning: slower compiler\na\.ts\(1,1\): error TS2322/s);
  });
});
