import { EmulatorState, emptyState } from "./state";
import { StateFile } from "./state-file";

/**
 * Holds the emulator's state. Handlers read `state` directly and call `changed()` after every
 * mutation; with a state file the change is written (atomically, coalesced per tick).
 */
export class Store {
  readonly state: EmulatorState;
  private writeScheduled = false;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    initial: EmulatorState = emptyState(),
    private readonly file?: StateFile,
  ) {
    this.state = initial;
  }

  /** Allocates the next numeric id of a kind. */
  nextId(kind: keyof EmulatorState["nextId"]): number {
    const id = this.state.nextId[kind];
    this.state.nextId[kind] = id + 1;
    return id;
  }

  changed(): void {
    const file = this.file;
    if (!file || this.writeScheduled) return;
    this.writeScheduled = true;
    this.writes = this.writes
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        this.writeScheduled = false; // changes from here on schedule another write
        return file.write(this.state);
      })
      .catch((error: Error) => {
        // Keep serving: the next change tries again. A crash here would lose the in-memory state too.
        process.stderr.write(`[emulator] could not write ${file.filePath}: ${error.message}\n`);
      });
  }

  /** Waits until every scheduled write is on disk; call before stopping. */
  async flush(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.writes;
      await current;
    } while (current !== this.writes);
  }
}
