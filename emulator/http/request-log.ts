import { FaultOutcome } from "./faults";

/** What a handled request changed, so tests can count objects created per natural key. */
export interface RequestEffect {
  created?: { kind: string; id: number | string; name: string };
  deleted?: { kind: string; id: number | string };
  updated?: { kind: string; id: number | string };
  /** Objects a list answered with (what a list costs beyond the request). */
  listed?: number;
}

export interface RequestLogEntry {
  seq: number;
  at: string;
  service: string;
  endpoint: string;
  method: string;
  path: string;
  /** HTTP status sent, or null when the connection was closed without an answer. */
  status: number | null;
  /** The fault injected, `rate-limit` when refused over the rate limit, or null. */
  fault: FaultOutcome | "rate-limit" | null;
  latencyMs: number;
  effect?: RequestEffect;
}

/** Every request the emulator's HTTP servers received, in order (admin calls excluded). */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private seq = 0;

  add(entry: Omit<RequestLogEntry, "seq" | "at">): void {
    this.entries.push({ seq: ++this.seq, at: new Date().toISOString(), ...entry });
  }

  all(): RequestLogEntry[] {
    return [...this.entries];
  }

  /** Requests per endpoint, e.g. `{ "domains/list": 3 }`. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const entry of this.entries) counts[entry.endpoint] = (counts[entry.endpoint] ?? 0) + 1;
    return counts;
  }

  count(endpoint: string): number {
    return this.entries.filter((entry) => entry.endpoint === endpoint).length;
  }

  clear(): void {
    this.entries = [];
  }
}
