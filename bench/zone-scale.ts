/**
 * N domains in one Cloudflare zone, each as `examples/basic` makes it (records, verification, two
 * routes), run through the test kit against the emulator as the engine runs each command: the
 * requests each command sends, counted from the emulator's request log, beside the ideal.
 *
 * - `preview`: the program once, in preview (nothing exists yet).
 * - `up`: its preview, then the update (the program again, providers executed).
 * - `up, no change`: both runs of the program again once the stack exists: every resource is
 *   answered with what the update recorded, as the engine answers a resource whose diff is empty;
 *   only the program's own reads (the zone) are sent.
 * - `refresh`: every dynamic resource's `read` as the provider host runs it (the engine sends the
 *   reads at once, here 64 at a time; with `--parallel 1`, one at a time), and the Cloudflare provider's read of each
 *   `cloudflare.DnsRecord` (a GET by id; not this package's code, counted apart).
 * - `destroy`: `destroyRun`, dependents first.
 *
 * Each command (and each of `up`'s two runs) starts with no shared list, as each Pulumi command
 * runs the providers in a provider host of its own.
 */
import { Domain, DomainCloudflareArgs, Route } from "../provider";
import { forgetSharedLists } from "../provider/client/process-runtime";
import type { Emulator, RequestLogEntry } from "../emulator";
import { destroyRun, refreshRun, runProgram, RunOptions, unchangedFrom } from "../testing";
import { requireFromString } from "../testing/node-realm";

/** What one command sent. */
export interface CommandCounts {
  command: string;
  /** Requests to the Cloudflare stand-in's record lists (each page one request), per program run. */
  cloudflareReads: number[];
  /** The fewest list requests that answer every question of one program run (see `idealZoneReads`). */
  idealCloudflareReads: number;
  /** Other Cloudflare requests: record writes and reads by id. */
  cloudflareOther: number;
  /**
   * Of those, reads by id: a refresh's, of each `cloudflare.DnsRecord` (the Cloudflare provider's
   * own cost, one GET per record) and of each claimed record.
   */
  cloudflareReadsById: number;
  /** Every Cloudflare request of the command, and the most in any 5 minutes of it (Cloudflare's window). */
  cloudflareTotal: number;
  cloudflareMostIn5Minutes: number;
  /** `domains/list` and `routes/list` requests, and the objects they answered with. */
  serviceLists: number;
  serviceListed: number;
  serviceOther: number;
}

export interface ZoneScaleOptions {
  domains: number;
  /** Records the zone holds before the run that are no stack's (A records under `other-`). @default 0 */
  otherRecords?: number;
  /** Each domain's `cloudflare.existingRecords` (records under a policy are claimed records). @default none */
  existingRecords?: DomainCloudflareArgs["existingRecords"];
  /** Commands to run after `up` (each needs the stack `up` made). @default all */
  commands?: ("noChange" | "refresh" | "destroy")[];
  /**
   * Resource operations at once, as `pulumi up --parallel`: what bounds how many records' writes
   * one batch gathers. @default 8, the engine's default on two cores (4 × cores)
   */
  parallel?: number;
}

/** The engine's default `--parallel` on two cores (4 × cores), the machines the bench runs on. */
export const ZONE_SCALE_PARALLEL = 8;

export interface ZoneScaleResult {
  domains: number;
  otherRecords: number;
  /** The `--parallel` the commands ran at: a batch gathers at most that many records. */
  parallel: number;
  commands: CommandCounts[];
  errors: string[];
}

const RECORDS_PER_PAGE = 100;

/**
 * The fewest requests the Cloudflare provider's pager needs to answer what a run asks about a zone
 * of `zoneRecords` records holding `domains` domains of the run: the whole zone (its pages and the
 * empty page that ends a read), or each domain alone (its page and the empty one).
 */
export function idealZoneReads(zoneRecords: number, domains: number): number {
  return Math.min(Math.ceil(zoneRecords / RECORDS_PER_PAGE) + 1, 2 * domains);
}

export async function measureZoneScale(
  emulator: Emulator,
  options: ZoneScaleOptions,
): Promise<ZoneScaleResult> {
  const n = options.domains;
  const otherRecords = options.otherRecords ?? 0;
  const zone = emulator.cloudflare.zones[0];
  await seedOtherRecords(emulator, otherRecords);
  const program = basicPrograms(emulator, n, options.existingRecords);
  const base: RunOptions = {
    mode: "preview",
    emulator,
    timeoutMs: 30 * 60_000,
    parallel: options.parallel ?? ZONE_SCALE_PARALLEL,
  };
  const commands: CommandCounts[] = [];
  const errors: string[] = [];
  const zoneSize = () => emulator.state.cloudflare.records.filter((r) => r.zoneId === zone.id).length;
  const note = (label: string, run: { errors: { message: string }[] }) =>
    errors.push(...run.errors.map((error) => `${label}: ${error.message}`));

  emulator.requests.clear();
  let ideal = idealZoneReads(zoneSize(), n);
  let runs = [mark(emulator)];
  note("preview", await runProgram(program, base));
  commands.push(counts(emulator, "preview", runs, ideal));

  runs = [mark(emulator)];
  note("up (preview)", await runProgram(program, base));
  runs.push(mark(emulator));
  const up = await runProgram(program, { ...base, mode: "live" });
  note("up", up);
  // The records' provider reads the zone for their creates' checks, once for the command (a
  // read of the last few seconds serves them all: zone-view.ts).
  commands.push(counts(emulator, "up", runs, ideal + 1));

  const wanted = options.commands ?? ["noChange", "refresh", "destroy"];
  if (wanted.includes("noChange")) {
    ideal = idealZoneReads(zoneSize(), n);
    const same = { ...base, hooks: { newResource: unchangedFrom(up) } };
    runs = [mark(emulator)];
    note("no-change preview", await runProgram(program, same));
    runs.push(mark(emulator));
    note("no-change update", await runProgram(program, { ...same, mode: "live" }));
    commands.push(counts(emulator, "up, no change", runs, ideal));
  }
  if (wanted.includes("refresh")) {
    // As `pulumi refresh` reads (the kit's refreshRun), at the engine's default parallelism and one
    // at a time: reads of a kind share one list either way. The service domains' statuses come
    // back changed (the verifications checked them since they were made); nothing may be gone.
    for (const [label, parallel] of [
      ["refresh", base.parallel],
      ["refresh, one at a time", 1],
    ] as const) {
      runs = [mark(emulator)];
      const refreshed = await refreshRun(up, { ...base, mode: "live", parallel });
      errors.push(...refreshed.errors.map((error) => `${label}: ${error.subject}: ${error.message}`));
      if (refreshed.deleted.length > 0)
        errors.push(`${label}: reported gone: ${refreshed.deleted.join(", ")}`);
      commands.push(counts(emulator, label, runs, 0));
    }
  }
  if (wanted.includes("destroy")) {
    runs = [mark(emulator)];
    const destroyed = await destroyRun(up, { ...base, mode: "live" });
    errors.push(...destroyed.errors.map((error) => `destroy: ${error.subject}: ${error.message}`));
    commands.push(counts(emulator, "destroy", runs, 0));
  }
  return { domains: n, otherRecords, parallel: base.parallel!, commands, errors };
}

/** `n` domains as examples/basic declares one, on the emulator's first zone. */
function basicPrograms(emulator: Emulator, n: number, existingRecords: ZoneScaleOptions["existingRecords"]) {
  const zoneId = emulator.cloudflare.zones[0].id;
  const zoneName = emulator.cloudflare.zones[0].name;
  const [support, archive] = emulator.state.endpoints;
  return () => {
    const verified: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const domain = new Domain(`mail-${i}`, {
        name: `mail-${i}.${zoneName}`,
        cloudflare: { zoneId, existingRecords },
        verification: { timeoutSeconds: 600, pollIntervalSeconds: 1 },
      });
      new Route(`support-${i}`, {
        name: "support",
        domainId: domain.domainId,
        endpointId: support.id,
        mode: "Endpoint",
        spamMode: "Quarantine",
      });
      new Route(`catch-all-${i}`, {
        name: "*",
        domainId: domain.domainId,
        endpointId: archive.id,
        mode: "Hold",
      });
      verified[`verified-${i}`] = domain.verified;
    }
    return verified;
  };
}

/** The global object of the realm the kit runs providers in (Node's own, also under jest). */
const providerRealm = requireFromString("module.exports = globalThis") as object;

/**
 * Where the request log stood when a program run began. The run starts as a new provider host
 * does, with no shared list of the email service's objects.
 */
function mark(emulator: Emulator): number {
  forgetSharedLists(providerRealm);
  return emulator.requests.all().length;
}

/** Cloudflare's account-wide window: 1,200 requests per 5 minutes per user. */
const CLOUDFLARE_WINDOW_MS = 5 * 60_000;

/** The most of `times` (milliseconds, in order) within any `windowMs`. */
export function mostInWindow(times: readonly number[], windowMs: number): number {
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end] - times[start] >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

function counts(emulator: Emulator, command: string, runStarts: number[], ideal: number): CommandCounts {
  const log = emulator.requests.all();
  const entries = log.slice(runStarts[0]);
  const isRead = (entry: RequestLogEntry) => entry.endpoint === "cloudflare:dns_records.list";
  const cloudflareReads = runStarts.map(
    (start, i) => log.slice(start, runStarts[i + 1] ?? log.length).filter(isRead).length,
  );
  const cloudflare = entries.filter((entry) => entry.service === "cloudflare");
  const lists = entries.filter(
    (entry) => entry.endpoint === "domains/list" || entry.endpoint === "routes/list",
  );
  return {
    command,
    cloudflareReads,
    idealCloudflareReads: ideal,
    cloudflareOther: cloudflare.filter((entry) => !isRead(entry)).length,
    cloudflareReadsById: cloudflare.filter((entry) => entry.endpoint === "cloudflare:dns_records.get").length,
    cloudflareTotal: cloudflare.length,
    cloudflareMostIn5Minutes: mostInWindow(
      cloudflare.map((entry) => Date.parse(entry.at)),
      CLOUDFLARE_WINDOW_MS,
    ),
    serviceLists: lists.length,
    serviceListed: lists.reduce((sum, entry) => sum + (entry.effect?.listed ?? 0), 0),
    serviceOther: entries.filter((entry) => entry.service !== "cloudflare").length - lists.length,
  };
}

/** `count` A records no stack made, posted 16 at a time through the stand-in's API. */
async function seedOtherRecords(emulator: Emulator, count: number): Promise<void> {
  const zone = emulator.cloudflare.zones[0];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const response = await fetch(`${emulator.cloudflare.url}/zones/${zone.id}/dns_records`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${emulator.cloudflare.apiToken}`,
          "Content-Type": "application/json",
        },
        body: JSON.stringify({
          type: "A",
          name: `other-${i}.${zone.name}`,
          content: `192.0.2.${i % 250}`,
          ttl: 300,
          proxied: false,
        }),
      });
      if (!response.ok)
        throw new Error(`seeding record ${i}: HTTP ${response.status} ${await response.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  emulator.requests.clear();
}
