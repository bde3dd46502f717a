/**
 * Faults on demand. A rule matches endpoints by glob (`*` stays within one `/` segment, `**`
 * matches anything) and gives each matching request a chance of failing in one of these ways:
 * - `rate429`: answer 429 with `Retry-After` before handling (nothing is done);
 * - `rate503`: answer 503 before handling (nothing is done);
 * - `dropRate`: close the connection before handling (nothing is done);
 * - `commitThenDropRate`: handle the request (its change is made), then close the connection
 *   without answering, so the client cannot know the outcome;
 * - `latencyMs`: delay every matching request before handling it; the change is still made
 *   after the delay even when the client has given up, as a real server would. At most 10
 *   minutes: Node fires a timer over 2^31-1 ms after 1 ms, so a larger value would mean none.
 * The first rule that matches an endpoint applies; a rule with `times` applies to that many
 * matching requests, then no more. Random draws come from a seeded generator so a test run is
 * repeatable.
 */

export interface FaultRule {
  /** Endpoint glob(s), comma-separated, e.g. `domains/create`, `routes/*`, `**`. */
  endpoints: string;
  /** Delay before handling, 0 to 600,000 ms (10 minutes). @default 0 */
  latencyMs?: number;
  /** Chance (0 to 1) of answering 429 with `Retry-After` before handling. @default 0 */
  rate429?: number;
  /** Whole seconds sent in `Retry-After` with a 429, 0 to 86,400 (a day). @default 1 */
  retryAfterSeconds?: number;
  /** Chance (0 to 1) of answering 503 before handling. @default 0 */
  rate503?: number;
  /** Chance (0 to 1) of closing the connection before handling. @default 0 */
  dropRate?: number;
  /** Chance (0 to 1) of handling, then closing the connection without answering. @default 0 */
  commitThenDropRate?: number;
  /** Apply to this many matching requests only (e.g. "the next create"). @default every one */
  times?: number;
}

/** What happens to a request: handled normally, refused with 429 or 503, dropped, or handled then dropped. */
export type FaultOutcome = "pass" | "429" | "503" | "drop" | "commit-then-drop";

/** What the fault rules decided for one request. */
export interface FaultDecision {
  /** What happens to it. */
  outcome: FaultOutcome;
  /** How long it waits before it is handled, in milliseconds. */
  latencyMs: number;
  /** The `Retry-After` seconds sent with a 429. */
  retryAfterSeconds: number;
  /**
   * In-process only: the request waits for this (after its latency) before it is handled. Tests
   * that wrap `decide` order requests with it, where latencies would rest on a quiet machine.
   */
  hold?: Promise<unknown>;
}

const PASS: FaultDecision = { outcome: "pass", latencyMs: 0, retryAfterSeconds: 0 };

/** The emulator's fault rules and the seeded draws that apply them (`Emulator.faults`). */
export class FaultInjector {
  private rules: FaultRule[] = [];
  /** How many more requests each rule with `times` may apply to, by index. */
  private remaining: (number | undefined)[] = [];
  private random: () => number;

  constructor(seed = 1) {
    this.random = seededRandom(seed);
  }

  /** Replaces all rules (an empty list turns faults off). */
  set(rules: FaultRule[], seed?: number): void {
    for (const rule of rules) validateRule(rule);
    this.rules = rules.map((rule) => ({ ...rule }));
    this.remaining = rules.map((rule) => rule.times);
    if (seed !== undefined) this.random = seededRandom(seed);
  }

  /** The rules in force (copies). */
  list(): FaultRule[] {
    return this.rules.map((rule) => ({ ...rule }));
  }

  /** Draws what happens to a request to `endpoint`, counting it against a rule's `times`. */
  decide(endpoint: string): FaultDecision {
    const index = this.rules.findIndex(
      (candidate, i) => this.remaining[i] !== 0 && endpointMatches(candidate.endpoints, endpoint),
    );
    if (index < 0) return PASS;
    const rule = this.rules[index];
    const left = this.remaining[index];
    if (left !== undefined) this.remaining[index] = left - 1;
    const decision: FaultDecision = {
      outcome: "pass",
      latencyMs: rule.latencyMs ?? 0,
      retryAfterSeconds: rule.retryAfterSeconds ?? 1,
    };
    let draw = this.random();
    const chances: [FaultOutcome, number | undefined][] = [
      ["drop", rule.dropRate],
      ["429", rule.rate429],
      ["503", rule.rate503],
      ["commit-then-drop", rule.commitThenDropRate],
    ];
    for (const [outcome, rate] of chances) {
      if (!rate) continue;
      if (draw < rate) return { ...decision, outcome };
      draw -= rate;
    }
    return decision;
  }
}

/** Whether an endpoint (`domains/create`) matches any of comma-separated globs (`domains/*,routes/**`). */
export function endpointMatches(globs: string, endpoint: string): boolean {
  return globs
    .split(",")
    .map((glob) => glob.trim())
    .filter(Boolean)
    .some((glob) => globToRegExp(glob).test(endpoint));
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .split("**")
    .map((part) =>
      part
        .split("*")
        .map((text) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]*"),
    )
    .join(".*");
  return new RegExp(`^${source}$`);
}

/** The settings a rule may have besides `endpoints`, all numbers. */
const SETTINGS = [
  "latencyMs",
  "rate429",
  "retryAfterSeconds",
  "rate503",
  "dropRate",
  "commitThenDropRate",
  "times",
] as const;
const isSetting = (key: string) => (SETTINGS as readonly string[]).includes(key);
/** Longer than a test would wait, far below the 2^31-1 ms at which Node's timers fire at once. */
const MAX_LATENCY_MS = 10 * 60 * 1000;
/** A whole number of seconds this size is always sent as digits, as `Retry-After` needs. */
const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;

function validateRule(rule: FaultRule): void {
  if (typeof rule !== "object" || rule === null || Array.isArray(rule)) {
    throw new Error('fault rule: must be an object such as {"endpoints": "**", "rate503": 0.5}');
  }
  if (typeof rule.endpoints !== "string" || rule.endpoints.trim() === "") {
    throw new Error("fault rule: `endpoints` must be a non-empty glob");
  }
  const unknown = Object.keys(rule).filter((key) => key !== "endpoints" && !isSetting(key));
  if (unknown.length > 0) {
    throw new Error(
      `fault rule: unknown setting \`${unknown[0]}\` (known: endpoints, ${SETTINGS.join(", ")})`,
    );
  }
  let total = 0;
  for (const key of ["rate429", "rate503", "dropRate", "commitThenDropRate"] as const) {
    const rate = rule[key];
    if (rate === undefined) continue;
    if (typeof rate !== "number" || !(rate >= 0 && rate <= 1)) {
      throw new Error(`fault rule: \`${key}\` must be a number from 0 to 1`);
    }
    total += rate;
  }
  if (total > 1) throw new Error("fault rule: the rates add up to more than 1");
  if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times > 0)) {
    throw new Error("fault rule: `times` must be a whole number of at least 1");
  }
  const { latencyMs, retryAfterSeconds } = rule;
  if (
    latencyMs !== undefined &&
    (typeof latencyMs !== "number" || !(latencyMs >= 0 && latencyMs <= MAX_LATENCY_MS))
  ) {
    throw new Error(`fault rule: \`latencyMs\` must be a number from 0 to ${MAX_LATENCY_MS} (10 minutes)`);
  }
  if (
    retryAfterSeconds !== undefined &&
    !(
      Number.isInteger(retryAfterSeconds) &&
      retryAfterSeconds >= 0 &&
      retryAfterSeconds <= MAX_RETRY_AFTER_SECONDS
    )
  ) {
    throw new Error(
      `fault rule: \`retryAfterSeconds\` must be a whole number from 0 to ${MAX_RETRY_AFTER_SECONDS} (a day)`,
    );
  }
}

/**
 * The body of `PUT /__emulator/faults`: `{"rules": [...], "seed"?: N}`, which replaces every rule.
 * Throws on anything else (an empty body included), so a malformed body changes nothing.
 */
export function parseFaultsBody(text: string): {
  /** The rules that replace every rule in force. */
  rules: FaultRule[];
  /** A new seed for the draws; unset keeps the generator as it is. */
  seed?: number;
} {
  const shape = 'expected {"rules": [...], "seed"?: N}; {"rules": []} turns faults off';
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new Error(`faults body is not JSON (${(error as Error).message}): ${shape}`, { cause: error });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new Error(`faults body: ${shape}`);
  const { rules, seed, ...rest } = body as { rules?: unknown; seed?: unknown };
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new Error(`faults body: unknown field \`${unknown[0]}\`; ${shape}`);
  if (!Array.isArray(rules)) throw new Error(`faults body: \`rules\` must be an array; ${shape}`);
  if (seed !== undefined && !Number.isInteger(seed))
    throw new Error("faults body: `seed` must be a whole number");
  return { rules: rules as FaultRule[], seed: seed as number | undefined };
}

/** mulberry32: tiny, fast and good enough to spread faults evenly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Parses the command-line form `ENDPOINTS:key=value,key=value`, for example
 * `domains/create:commitThenDropRate=0.5` or `**:rate429=0.3,retryAfterSeconds=0`.
 */
export function parseFaultRule(text: string): FaultRule {
  const colon = text.lastIndexOf(":");
  if (colon <= 0) throw new Error(`--fault ${text}: expected ENDPOINTS:key=value[,key=value]`);
  const rule: FaultRule = { endpoints: text.slice(0, colon) };
  for (const pair of text.slice(colon + 1).split(",")) {
    const [key, value] = pair.split("=");
    // Number("") is 0: an empty value must not pass as one.
    if (!isSetting(key) || !value?.trim() || Number.isNaN(Number(value))) {
      throw new Error(`--fault ${text}: "${pair}" is not setting=number (settings: ${SETTINGS.join(", ")})`);
    }
    (rule as unknown as Record<string, number>)[key] = Number(value);
  }
  try {
    validateRule(rule);
  } catch (error) {
    throw new Error(`--fault ${text}: ${(error as Error).message}`, { cause: error });
  }
  return rule;
}
