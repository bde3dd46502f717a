import type * as pulumi from "@pulumi/pulumi";
import type { AttemptRecord, DnsRecord } from "../provider/client";
import { forgetSharedLists } from "../provider/client/process-runtime";
import type { BenchEmulator } from "./emulator-process";
import { deleteRecords, publishRecords, PublishedRecords, readRecords } from "./records";
import { BenchProviders, configureProviders, requestCounts, since, total } from "./setup";

export type StepName = "create" | "refresh" | "update" | "delete";

/** Requests one lifecycle step sent, against what it should ideally cost. */
export interface StepResult {
  step: StepName | string;
  /**
   * Requests the emulator received, per endpoint (its request log): the email API's, and the
   * Cloudflare stand-in's (`cloudflare:…`, the domains' records; see bench/records.ts).
   */
  requests: Record<string, number>;
  /** One write per change; one list per kind per refresh; one check per verification; one request per record. */
  ideal: Record<string, number>;
  /** Requests the clients report sending (`onAttempt`), retries included; must equal the log. */
  attempts: number;
  /** Attempts after the first of an operation (0 without faults). */
  retries: number;
  /** Provider calls made in the step. */
  calls: number;
  ms: number;
}

/** A resource as the engine holds it: id and state (outputs). */
export interface Held {
  id: string;
  state: Record<string, unknown>;
}

export interface Fleet {
  n: number;
  domains: Held[];
  routes: Held[];
  /** One per domain (the Domain component's DomainVerification). */
  verifications: Held[];
  /** Each domain's records in the Cloudflare stand-in. */
  records: PublishedRecords[];
}

export interface LifecycleOptions {
  /** N: routes, spread over N/10 domains (at least one). */
  routes: number;
  providers: BenchProviders;
  /** Runs after the create step, before the in-process refresh (e.g. refreshes through the real host). */
  afterCreate?: (fleet: Fleet) => Promise<StepResult[]>;
  /** Called at each step boundary (memory sampling). */
  onStep?: () => void;
}

export interface LifecycleResult {
  routes: number;
  domains: number;
  steps: StepResult[];
}

/**
 * create → refresh → update → delete of N routes on N/10 domains, each domain as the Domain
 * component makes it (its records in Cloudflare, then its DomainVerification), through the
 * provider objects as the provider host calls them (check, then create; read; check, diff,
 * update; delete), in this process, after configure(). The records' requests are the bench's
 * stand-ins for the Cloudflare provider's (bench/records.ts). Independent operations run
 * concurrently as the engine runs them (unbounded: the engine's --parallel default does not
 * limit this bench); a route's create and a domain's records wait for the domain, a
 * verification for its records; routes are deleted before their domains.
 */
export async function runLifecycle(
  emulator: BenchEmulator,
  options: LifecycleOptions,
): Promise<LifecycleResult> {
  const attempts: AttemptRecord[] = [];
  const { domainProvider, routeProvider, verificationProvider } = options.providers;
  await configureProviders(emulator, options.providers, attempts);
  const n = options.routes;
  const domainCount = Math.max(1, Math.floor(n / 10));
  const endpointId = emulator.endpointId;
  const fleet: Fleet = { n, domains: [], routes: [], verifications: [], records: [] };
  const steps: StepResult[] = [];
  const prefix = `bench${n}-${process.pid}-${Date.now().toString(36)}`;

  const measure = async (
    step: string,
    ideal: Record<string, number>,
    run: () => Promise<number>,
  ): Promise<StepResult> => {
    options.onStep?.();
    await emulator.requests.clear();
    attempts.length = 0;
    const start = performance.now();
    const calls = await run();
    const ms = since(start);
    options.onStep?.();
    return {
      step,
      requests: await requestCounts(emulator),
      ideal,
      attempts: attempts.length,
      retries: attempts.filter((attempt) => attempt.attempt > 1).length,
      calls,
      ms,
    };
  };

  // create: domains (all at once), then routes (all at once, each needs its domain's id) and,
  // beside them, each domain's records and then its verification. A create is one request: the
  // service refuses a name it holds, so nothing is listed unless an answer is lost (client.ts
  // `createDomain`). A verification whose records are already valid costs one check (its
  // domain's name is looked up only while it waits).
  let recordCount = 0;
  const ideal = {
    "domains/create": domainCount,
    "domains/check": domainCount,
    "routes/create": n,
    "cloudflare:dns_records.create": NaN, // one per record: set once the domains say how many
  };
  steps.push(
    await measure("create", ideal, async () => {
      fleet.domains = await Promise.all(
        Array.from({ length: domainCount }, (_, i) =>
          createOne(domainProvider, { name: `${prefix}-d${i}.example.com` }),
        ),
      );
      recordCount = fleet.domains.reduce((sum, held) => sum + recordsOf(held).length, 0);
      ideal["cloudflare:dns_records.create"] = recordCount;
      const routes = Promise.all(
        Array.from({ length: n }, (_, i) =>
          createOne(routeProvider, {
            name: `route${i}`,
            domainId: Number(fleet.domains[i % domainCount].id),
            endpointId,
          }),
        ),
      );
      const verified = Promise.all(
        fleet.domains.map(async (domain) => {
          const records = await publishRecords(emulator, recordsOf(domain));
          // The default poll settings; the records are valid, so the first check passes.
          const verification = await createOne(verificationProvider, { domainId: Number(domain.id) });
          if (verification.state.verified !== true) throw new Error(`domain ${domain.id} not verified`);
          return { records, verification };
        }),
      );
      fleet.routes = await routes;
      fleet.records = (await verified).map((v) => v.records);
      fleet.verifications = (await verified).map((v) => v.verification);
      return 2 * (2 * domainCount + n); // check + create each
    }),
  );

  steps.push(...((await options.afterCreate?.(fleet)) ?? []));

  // refresh: every read issued at once, as the engine sends them; nothing may be reported gone.
  steps.push(
    await measure("refresh", refreshIdeal(domainCount, recordCount), async () => {
      // A refresh is a Pulumi command of its own: its provider host starts with no shared list.
      forgetSharedLists();
      const held = [...fleet.domains, ...fleet.routes, ...fleet.verifications];
      const [reads] = await Promise.all([
        Promise.all([
          ...fleet.domains.map((domain) => domainProvider.read!(domain.id, domain.state)),
          ...fleet.routes.map((route) => routeProvider.read!(route.id, route.state)),
          ...fleet.verifications.map((v) => verificationProvider.read!(v.id, v.state)),
        ]),
        ...fleet.records.map((records) => readRecords(emulator, records)),
      ]);
      const gone = reads.filter((read, i) => read.id !== held[i].id);
      if (gone.length) throw new Error(`refresh reported ${gone.length} existing resources gone`);
      return reads.length + recordCount;
    }),
  );

  // update: every route's spamMode changes (check, diff, update, as the engine calls them).
  steps.push(
    await measure("update", { "routes/update": n }, async () => {
      fleet.routes = await Promise.all(
        fleet.routes.map(async (held) => {
          const news = { ...inputsOf(held.state), spamMode: "Quarantine" };
          const checked = await routeProvider.check!(held.state, news);
          const diff = await routeProvider.diff!(held.id, held.state, checked.inputs!);
          if (!diff.changes || diff.replaces?.length)
            throw new Error(`unexpected diff ${JSON.stringify(diff)}`);
          const updated = await routeProvider.update!(held.id, held.state, checked.inputs!);
          if (updated.outs?.spamMode !== "Quarantine") throw new Error("the update did not take");
          return { id: held.id, state: updated.outs };
        }),
      );
      return 3 * n;
    }),
  );

  // delete: routes, verifications (nothing on the service) and records first (they depend on
  // their domains), then domains.
  const deleteIdeal = {
    "routes/delete": n,
    "domains/delete": domainCount,
    "cloudflare:dns_records.delete": recordCount,
  };
  steps.push(
    await measure("delete", deleteIdeal, async () => {
      await Promise.all([
        ...fleet.routes.map((held) => routeProvider.delete!(held.id, held.state)),
        ...fleet.verifications.map((held) => verificationProvider.delete!(held.id, held.state)),
        ...fleet.records.map((records) => deleteRecords(emulator, records)),
      ]);
      await Promise.all(fleet.domains.map((held) => domainProvider.delete!(held.id, held.state)));
      return n + 2 * domainCount + recordCount;
    }),
  );

  return { routes: n, domains: domainCount, steps };
}

/** check, then create, as the provider host calls them for a new resource. */
export async function createOne(
  provider: pulumi.dynamic.ResourceProvider,
  news: Record<string, unknown>,
): Promise<Held> {
  const checked = await provider.check!({}, news);
  if (checked.failures?.length) throw new Error(`check failed: ${JSON.stringify(checked.failures)}`);
  const created = await provider.create(checked.inputs!);
  return { id: created.id, state: created.outs ?? {} };
}

/** A domain's records, from its outputs. */
export function recordsOf(domain: Held): DnsRecord[] {
  return (domain.state.dnsRecords as DnsRecord[] | undefined) ?? [];
}

/**
 * What a refresh should cost: one list per kind (all reads share it), one check per verification
 * (a verification's read is its check) and one read per record (the Cloudflare provider's).
 */
export function refreshIdeal(domains: number, records: number): Record<string, number> {
  return {
    "domains/list": 1,
    "routes/list": 1,
    "domains/check": domains,
    "cloudflare:dns_records.get": records,
  };
}

/**
 * The lists a refresh's reads would send if none reused another's (a domain read lists domains;
 * a route read lists routes and domains), against the lists it sent: what reuse saves. A reused
 * list is a cache hit, not overhead, so it is counted, never timed against a request.
 */
export function listsSaved(
  step: StepResult,
  domains: number,
  routes: number,
): { unshared: number; sent: number } {
  const { domains: domainLists, routes: routeLists } = listsPerKind(step);
  return { unshared: domains + 2 * routes, sent: domainLists + routeLists };
}

function inputsOf(state: Record<string, unknown>): Record<string, unknown> {
  const { name, domainId, endpointId, mode, spamMode, adopt } = state;
  return { name, domainId, endpointId, mode, spamMode, adopt };
}

/** Lists per kind a refresh cost: the figure the target (≤ 2 per kind) is about. */
export function listsPerKind(step: StepResult): { domains: number; routes: number } {
  return { domains: step.requests["domains/list"] ?? 0, routes: step.requests["routes/list"] ?? 0 };
}

/** True when a step sent exactly the ideal requests. */
export function isIdeal(step: StepResult): boolean {
  const keys = new Set([...Object.keys(step.requests), ...Object.keys(step.ideal)]);
  return [...keys].every((key) => (step.requests[key] ?? 0) === (step.ideal[key] ?? 0));
}

export { total };
