import { FaultOutcome } from "./faults";

/** What a handled request changed, so tests can count objects created per natural key. */
export interface RequestEffect {
  /** The object the request created. */
  created?: {
    /** What it is (`domain`, `route`, a Cloudflare `record`, …). */
    kind: string;
    /** Its id. */
    id: number | string;
    /** Its natural key: the name it was created by. */
    name: string;
  };
  /** The object the request deleted. */
  deleted?: {
    /** What it is. */
    kind: string;
    /** Its id. */
    id: number | string;
  };
  /** The object the request changed. */
  updated?: {
    /** What it is. */
    kind: string;
    /** Its id. */
    id: number | string;
  };
  /** Objects a list answered with (what a list costs beyond the request). */
  listed?: number;
}

/** One request an emulator's HTTP server received, with what it answered and changed. */
export interface RequestLogEntry {
  /** Order of arrival across both services (1-based). */
  seq: number;
  /** When it was logged (ISO 8601). */
  at: string;
  /** Which service received it: `email-api` or `cloudflare`. */
  service: string;
  /** The operation, e.g. `domains/create` or `dns_records/list`: what counts and fault rules use. */
  endpoint: string;
  /** The HTTP method. */
  method: string;
  /** The request path, without the query string. */
  path: string;
  /** HTTP status sent, or null when the connection was closed without an answer. */
  status: number | null;
  /** The fault injected, `rate-limit` when refused over the rate limit, or null. */
  fault: FaultOutcome | "rate-limit" | null;
  /** The latency injected before handling it, in milliseconds. */
  latencyMs: number;
  /** What handling it changed; unset when it changed nothing. */
  effect?: RequestEffect;
}

/** Every request the emulator's HTTP servers received, in order (admin calls excluded). */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private seq = 0;

  /** Logs a request, numbering and timestamping it. */
  add(entry: Omit<RequestLogEntry, "seq" | "at">): void {
    this.entries.push({ seq: ++this.seq, at: new Date().toISOString(), ...entry });
  }

  /** Every request logged, in order (a copy). */
  all(): RequestLogEntry[] {
    return [...this.entries];
  }

  /** Requests per endpoint, e.g. `{ "domains/list": 3 }`. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const entry of this.entries) counts[entry.endpoint] = (counts[entry.endpoint] ?? 0) + 1;
    return counts;
  }

  /** How many requests an endpoint received, e.g. `count("domains/create")`. */
  count(endpoint: string): number {
    return this.entries.filter((entry) => entry.endpoint === endpoint).length;
  }

  /** Forgets every request logged so far. */
  clear(): void {
    this.entries = [];
  }
}
