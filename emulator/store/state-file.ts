import { promises as fs } from "node:fs";
import * as path from "node:path";
import { EmulatorState } from "./state";
import { parseState } from "./state-schema";

/** The `--state FILE` persistence: JSON, replaced atomically (write a temp file, then rename). */
export class StateFile {
  private writes: Promise<void> = Promise.resolve();

  constructor(readonly filePath: string) {}

  /**
   * The saved state, or undefined when the file does not exist yet. A file that cannot be read,
   * is empty, is not JSON or is not shaped as the emulator writes it throws an error naming the
   * file and the problem; nothing has been started or written by then.
   */
  async read(): Promise<EmulatorState | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.filePath, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new Error(`state file ${this.filePath} cannot be read: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (text.trim() === "") throw new Error(`state file ${this.filePath} is empty`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      // eslint-disable-next-line preserve-caught-error -- its message quotes the file, which holds keys
      throw new Error(`state file ${this.filePath} is not JSON: ${jsonErrorWithoutInput(error as Error)}`);
    }
    return parseState(json, this.filePath);
  }

  /**
   * Writes are chained so an older snapshot can never overwrite a newer one; a failed write
   * rejects its own promise only (naming the file), and later writes still run.
   */
  write(state: EmulatorState): Promise<void> {
    const text = JSON.stringify(state); // compact: written before answers, and indenting took 2.5× as long
    const write = this.writes.then(async () => {
      // Same folder, so the rename is atomic: the file is always the old state or the new one.
      const temp = path.join(
        path.dirname(this.filePath),
        `.${path.basename(this.filePath)}.${process.pid}.tmp`,
      );
      try {
        // Flushed before the rename: after a power cut the file is the old state or the new one,
        // never an empty or partial one.
        // Owner only: the state holds the keys.
        await fs.writeFile(temp, text, { encoding: "utf8", flush: true, mode: 0o600 });
        await fs.rename(temp, this.filePath);
      } catch (error) {
        await fs.rm(temp, { force: true }).catch(() => undefined);
        throw new Error(`state file ${this.filePath} cannot be written: ${(error as Error).message}`, {
          cause: error,
        });
      }
    });
    this.writes = write.catch(() => undefined);
    return write;
  }
}

/** V8 quotes the text around a bad token (`Unexpected token 'x', "…" is not valid JSON`): keys. */
function jsonErrorWithoutInput(error: Error): string {
  return error.message.replace(/,\s*(\.\.\.)?".*$/s, "");
}
