import { availableParallelism } from "node:os";
import { forgetZoneViews } from "../provider/cloudflare/zone-view";
import { nodeRealm } from "./node-realm";

/**
 * How many resource operations a command runs at once, as the engine's `--parallel` bounds them:
 * `parallel` when given (checked), else the engine's default, 4 × the machine's cores. `who` names
 * the kit function in the error.
 */
export function commandParallel(parallel: number | undefined, who: string): number {
  const lanes = parallel ?? 4 * availableParallelism();
  if (!Number.isInteger(lanes) || lanes < 1)
    throw new Error(`${who}: parallel must be a whole number of at least 1, not ${String(parallel)}`);
  return lanes;
}

/** At most `size` calls under way at once; the others wait their turn, first come first served. */
export class Lanes {
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      // The lane passes to the next in line, or is freed.
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/**
 * A new Pulumi command: the engine starts a provider process for it, so what the providers keep
 * for one command (the process's view of each zone) starts empty.
 */
export function startCommand(): void {
  forgetZoneViews(nodeRealm.globalThis);
}
