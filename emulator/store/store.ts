import { EmulatorState, emptyState } from "./state";
import { StateFile } from "./state-file";

/**
 * Holds the emulator's state. Handlers read `state` directly and call `changed()` after every
 * mutation; with a state file the change is written (atomically, coalesced per tick).
 */
export class Store {
  readonly state: EmulatorState;
  private pendingWrite: Promise<void> | undefined;

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
    if (!this.file || this.pendingWrite) return;
    this.pendingWrite = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.pendingWrite = undefined;
      return this.file!.write(this.state);
    });
  }

  /** Waits for any scheduled write; call before stopping. */
  async flush(): Promise<void> {
    while (this.pendingWrite) await this.pendingWrite;
  }
}
