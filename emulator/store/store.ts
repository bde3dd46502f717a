import { EmulatorState, emptyState } from "./state";
import { StateFile } from "./state-file";

/**
 * Holds the emulator's state. Handlers read `state` directly and call `changed()` after every
 * mutation. With a state file, each change schedules a write (atomic; the changes of one tick, and
 * those made while a write is under way, go out in one write), and `persisted()` tells when the
 * file holds every change made so far: the HTTP layer waits for it before answering.
 */
export class Store {
  readonly state: EmulatorState;
  /** Bumped by every change; `savedVersion` is the latest one the file is known to hold. */
  private version = 0;
  private savedVersion = 0;
  /** A write not started yet: it will hold every change made until it starts. */
  private scheduled: Promise<void> | undefined;
  /** The write under way and the version it holds. */
  private writing: { version: number; done: Promise<void> } | undefined;
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
    this.version += 1;
    if (this.file) this.scheduleWrite(this.file).catch(() => undefined); // persisted() reports failures
  }

  /**
   * Resolves once the state file holds every change made so far (at once without a file);
   * rejects, naming the file, if the write fails. A failed write is tried again by the next call.
   */
  async persisted(): Promise<void> {
    const target = this.version;
    while (this.file && this.savedVersion < target) {
      const writing = this.writing;
      await (!this.scheduled && writing && writing.version >= target
        ? writing.done
        : this.scheduleWrite(this.file));
    }
  }

  /** Waits until every scheduled write is done; call before stopping. */
  async flush(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.writes;
      await current;
    } while (current !== this.writes);
  }

  private scheduleWrite(file: StateFile): Promise<void> {
    if (this.scheduled) return this.scheduled;
    const write = this.writes
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(async () => {
        this.scheduled = undefined; // changes from here on schedule another write
        const version = this.version;
        const done = file.write(this.state);
        this.writing = { version, done };
        try {
          await done;
          this.savedVersion = Math.max(this.savedVersion, version);
        } finally {
          if (this.writing?.done === done) this.writing = undefined;
        }
      });
    this.scheduled = write;
    this.writes = write.catch(() => undefined);
    return write;
  }
}
