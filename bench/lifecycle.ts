import type * as pulumi from "@pulumi/pulumi";
import type { Emulator } from "../emulator";
import type { AttemptRecord } from "../provider/client";
import { BenchProviders, configureProviders, emailApiCounts, since, total } from "./setup";

export type StepName = "create" | "refresh" | "update" | "delete";

/** Requests one lifecycle step sent, against what it should ideally cost. */
export interface StepResult {
  step: StepName | string;
  /** Requests the email API received, per endpoint (from the emulator's request log). */
  requests: Record<string, number>;
  /** One write per change; one list per kind per refresh. */
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
 * create → refresh → update → delete of N routes on N/10 domains, through the provider objects
 * as the provider host calls them (check, then create; read; check, diff, update; delete), in
 * this process, after configure(). Independent operations run concurrently as the engine runs
 * them (unbounded: the engine's --parallel default does not limit this bench); a route's create
 * waits for its domain, and routes are deleted before their domains.
 */
export async function runLifecycle(emulator: Emulator, options: LifecycleOptions): Promise<LifecycleResult> {
  const attempts: AttemptRecord[] = [];
  const { domainProvider, routeProvider } = options.providers;
  await configureProviders(emulator, options.providers, attempts);
  const n = options.routes;
  const domainCount = Math.max(1, Math.floor(n / 10));
  const endpointId = emulator.state.endpoints[0].id;
  const fleet: Fleet = { n, domains: [], routes: [] };
  const steps: StepResult[] = [];
  const prefix = `bench${n}-${process.pid}-${Date.now().toString(36)}`;

  const measure = async (
    step: string,
    ideal: Record<string, number>,
    run: () => Promise<number>,
  ): Promise<StepResult> => {
    options.onStep?.();
    emulator.requests.clear();
    attempts.length = 0;
    const start = performance.now();
    const calls = await run();
    const ms = since(start);
    options.onStep?.();
    return {
      step,
      requests: emailApiCounts(emulator),
      ideal,
      attempts: attempts.length,
      retries: attempts.filter((attempt) => attempt.attempt > 1).length,
      calls,
      ms,
    };
  };

  // create: domains (all at once), then routes (all at once, each needs its domain's id). Each
  // burst also lists its kind to prove the names free (client.ts `createDomain`): creates that
  // start together share a list sent after they began, so two lists a burst (one for a single
  // create), however many objects.
  const ideal = {
    "domains/list": Math.min(2, domainCount),
    "domains/create": domainCount,
    "routes/list": Math.min(2, n),
    "routes/create": n,
  };
  steps.push(
    await measure("create", ideal, async () => {
      fleet.domains = await Promise.all(
        Array.from({ length: domainCount }, (_, i) =>
          createOne(domainProvider, { name: `${prefix}-d${i}.example.com` }),
        ),
      );
      fleet.routes = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          createOne(routeProvider, {
            name: `route${i}`,
            domainId: Number(fleet.domains[i % domainCount].id),
            endpointId,
          }),
        ),
      );
      return 2 * (domainCount + n); // check + create each
    }),
  );

  steps.push(...((await options.afterCreate?.(fleet)) ?? []));

  // refresh: every read issued at once, as the engine sends them; nothing may be reported gone.
  steps.push(
    await measure("refresh", { "domains/list": 1, "routes/list": 1 }, async () => {
      const held = [...fleet.domains, ...fleet.routes];
      const reads = await Promise.all([
        ...fleet.domains.map((domain) => domainProvider.read!(domain.id, domain.state)),
        ...fleet.routes.map((route) => routeProvider.read!(route.id, route.state)),
      ]);
      const gone = reads.filter((read, i) => read.id !== held[i].id);
      if (gone.length) throw new Error(`refresh reported ${gone.length} existing resources gone`);
      return reads.length;
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

  // delete: routes first (they depend on their domains), then domains.
  steps.push(
    await measure("delete", { "routes/delete": n, "domains/delete": domainCount }, async () => {
      await Promise.all(fleet.routes.map((held) => routeProvider.delete!(held.id, held.state)));
      await Promise.all(fleet.domains.map((held) => domainProvider.delete!(held.id, held.state)));
      const left = emulator.state.domains.filter((domain) => domain.name.startsWith(prefix));
      if (left.length) throw new Error(`${left.length} domains left after delete`);
      return n + domainCount;
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
