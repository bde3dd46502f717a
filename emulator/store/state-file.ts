import { promises as fs } from "node:fs";
import * as path from "node:path";
import { EmulatorState } from "./state";

/** The `--state FILE` persistence: JSON, replaced atomically (write a temp file, then rename). */
export class StateFile {
  private writes: Promise<void> = Promise.resolve();

  constructor(readonly filePath: string) {}

  /** The saved state, or undefined when the file does not exist yet. */
  async read(): Promise<EmulatorState | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.filePath, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    const state = JSON.parse(text) as EmulatorState;
    if (state.version !== 1)
      throw new Error(`${this.filePath}: unsupported emulator state version ${state.version}`);
    return state;
  }

  /**
   * Writes are chained so an older snapshot can never overwrite a newer one; a failed write
   * rejects its own promise only, and later writes still run.
   */
  write(state: EmulatorState): Promise<void> {
    const text = JSON.stringify(state, null, 1);
    const write = this.writes.then(async () => {
      const temp = path.join(
        path.dirname(this.filePath),
        `.${path.basename(this.filePath)}.${process.pid}.tmp`,
      );
      await fs.writeFile(temp, text, "utf8");
      await fs.rename(temp, this.filePath);
    });
    this.writes = write.catch(() => undefined);
    return write;
  }
}
