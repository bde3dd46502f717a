import type * as pulumi from "@pulumi/pulumi";
import { AttemptRecord, isAnswerLostObjectExists, isEmailApiError } from "../../provider/client";
import { domainProvider, routeProvider } from "../../provider/dynamic";
import { forgetConfig } from "../../provider/dynamic/configured";
import { setClientDefaults } from "../../provider/dynamic/connection";
import { processRuntime } from "../../provider/client/process-runtime";
import type { RouteInputs } from "../../provider/inputs";
import type { ServiceDomainOutputs } from "../../provider/dynamic/domain-provider";
import type { RouteOutputs } from "../../provider/dynamic/route-provider";
import type { FaultDecision, FaultRule, RequestLogEntry } from "../../emulator";
import { uniqueDomain, useEmulator } from "../support/emulator";
import { configureRequest } from "../support/providers";
import { seededRandom } from "../../emulator/http/faults";

/**
 * The fault suite (issue 5, section 2): a 200-operation scenario through the dynamic providers,
 * called as the provider host calls them, while the emulator fails a share of requests as 429
 * (Retry-After 0), 503, dropped connections, answers slower than the request timeout, and
 * commit-then-drop writes. Each operation must succeed or fail with a transient error after its
 * whole retry budget; nothing may be duplicated, reported gone while it exists, or lost.
 *
 * What a slow answer does, and when, is the scenario's (`SlowAnswers`), not the clock's: it is held
 * until the client has given up on it and a point drawn with the seed has come, so a busy machine
 * changes how long the suite takes, not what it does or checks.
 */

/** The client's default attempt cap: what a real `pulumi up` gets. */
const MAX_ATTEMPTS = 6;
/**
 * The request timeout of an operation given no slow answer: one no answer of the emulator comes
 * near, however busy the machine (they take a few ms; DKIM keys ~10 ms). A short timeout there
 * tripped on a loaded machine and turned a fault-free operation into a lost answer.
 */
const REQUEST_TIMEOUT_MS = 10_000;
/**
 * The request timeout of an operation given one slow answer: short, as each slow answer costs it
 * (about 35 of the 800 operations), yet 20 times what the emulator's answers take here when the
 * machine is busy. The slow answer is held until the client gave up on it (`SlowAnswers`), so
 * nothing waits on this bound's exactness; another answer that outlasts it on a very busy machine
 * is one more lost answer, which every operation must survive as it survives the drops.
 */
const SLOW_OP_TIMEOUT_MS = 200;
/**
 * A slow answer's latency: only its mark in the request log (`latencyMs`). The answer itself is held
 * by `SlowAnswers` until the point drawn for it, however long that takes on this machine.
 */
const SLOW_MARK_MS = 1;
/** How many operations on a slow write may land at most (`SlowAnswers`). */
const LATEST_LANDING = 150;
/** How long `SlowAnswers` waits for the emulator to handle a request before it calls it lost: a bug, never load. */
const UNHANDLED_MS = 60_000;
const OPERATIONS = 200;
/**
 * Jest's limit for one failure rate's scenario. It takes 2 to 6 s on a quiet machine and 5 times
 * that with both cores busy and other suites running: its time is CPU (200 operations, DKIM keys)
 * and one request timeout per slow answer, none of it a bound the scenario relies on.
 */
const SCENARIO_TIMEOUT_MS = 180_000;

type OpKind =
  | "domain.create"
  | "domain.read"
  | "domain.delete"
  | "domain.delete-again"
  | "route.create"
  | "route.create-retry"
  | "route.read"
  | "route.update"
  | "route.delete"
  | "route.delete-again";

interface OpRecord {
  kind: OpKind;
  ok: boolean;
  /** Requests it made: `sent`'s length once every request the scenario made has ended. */
  attempts: number;
  /** Its requests' records (`onAttempt`), as they end. */
  sent: AttemptRecord[];
  /** How the failure was classified; undefined for successes. */
  failure?: string;
  /** A failure that is the provider's designed answer (see `operation`), not a give-up. */
  designed?: true;
}

interface TrackedDomain {
  id: string;
  outs: ServiceDomainOutputs;
}

interface TrackedRoute {
  id: string;
  outs: RouteOutputs;
}

interface RateResult {
  ops: OpRecord[];
  requests: RequestLogEntry[];
  violations: string[];
  duplicates: string[];
  /** Creates slower than the timeout that landed after the object their resend made was deleted. */
  lateCreates: string[];
}

/**
 * The rules for one operation at failure rate `rate`: a fifth each of 429, 503, drops, slow answers
 * and commit-then-drop (on writes; a list that commits and drops is just a drop, so lists get the
 * share as drops). Slow answers cannot be drawn per request by the injector (latency belongs to a
 * rule), so per operation, with a seeded draw, one request is slow (the first; 30% of the time the
 * second), ahead of the mix.
 */
/**
 * The share of operations with a slow answer: half the drop rate, at most 1 in 16. Each costs a
 * request timeout of real waiting (the client gives up on it before it lands), and a dozen per
 * failure rate already cover every kind of operation; more only made the suite slower.
 */
function slowShare(rate: number): number {
  return Math.min(1 / 16, (rate / 5) * 2.5);
}

function rulesFor(rate: number, slowAt: number | undefined): FaultRule[] {
  const share = rate / 5;
  if (share === 0) return [];
  const mix = (times?: number): FaultRule[] => [
    {
      endpoints: "domains/create,routes/create,domains/delete,routes/delete,routes/update",
      rate429: share,
      retryAfterSeconds: 0,
      rate503: share,
      dropRate: share,
      commitThenDropRate: share,
      times,
    },
    { endpoints: "**", rate429: share, retryAfterSeconds: 0, rate503: share, dropRate: 2 * share, times },
  ];
  if (slowAt === undefined) return mix();
  return [
    ...(slowAt > 0 ? mix(slowAt) : []),
    { endpoints: "**", latencyMs: SLOW_MARK_MS, times: 1 },
    ...mix(),
  ];
}

/** Where a held slow answer lands: before its operation's nth request after it, or before an operation. */
type Landing = { afterRequests: number; seen: number } | { beforeOp: number };

/**
 * The scenario's slow answers. A latency rule marks a request as slow (the log shows its
 * `latencyMs`); it is then held (`FaultDecision.hold`) until the point drawn for it, never for a
 * fixed time. (It was held 1 s: on a busy machine the answer of one operation's slow create landed
 * in the middle of a later operation, which counted that create as its own doing.) A slow write lands
 * - before the next request of its operation: the client gave up on it (an operation sends its
 *   requests one at a time, the next once this one timed out), so the lookup or resend after it sees it;
 * - before the request after that: after a lookup that found nothing, before the resend;
 * - or before an operation 1 to `LATEST_LANDING` operations on: after its operation's resend made
 *   the object (the slow create is refused, or lands after the object was deleted: a late create),
 *   or after its operation failed (the create, run again, finds the object).
 * A slow list lands before the next request (a late list changes nothing); an answer whose
 * operation sends no more requests lands before the next operation. A release waits until the
 * request is handled (logged), and every operation until each request it made is handled: what the
 * log shows during an operation is its own doing and the slow answers it was drawn to see, and the
 * checks after it see no change it did not make.
 */
class SlowAnswers {
  /** The operation under way (1-based). */
  private op = 0;
  private draw: () => number = () => 0;
  private held: { op: number; landing: Landing; release: () => void }[] = [];
  /** Requests decided and logged during the scenario, held ones apart. */
  private counts = { decided: 0, handled: 0, released: 0, landed: 0 };
  private waiters = new Set<() => void>();
  active = false;

  start(seed: number): void {
    this.op = 0;
    this.draw = seededRandom(seed);
    this.held = [];
    this.counts = { decided: 0, handled: 0, released: 0, landed: 0 };
    this.active = true;
  }

  /** The injector's decision for a request, held when it is a slow answer. */
  decide(endpoint: string, decision: FaultDecision): FaultDecision {
    if (decision.latencyMs > 0) {
      let release: () => void = () => undefined;
      const hold = new Promise<void>((resolve) => (release = resolve));
      this.held.push({ op: this.op, landing: this.landingOf(endpoint), release });
      return { ...decision, hold };
    }
    this.counts.decided++;
    const due = this.held.filter((answer) => {
      const { landing } = answer;
      return answer.op === this.op && "afterRequests" in landing && ++landing.seen >= landing.afterRequests;
    });
    // This request is handled once they are: they land before it.
    return due.length > 0 ? { ...decision, hold: this.land(due) } : decision;
  }

  /** Called for every request the emulator logs. */
  logged(entry: Pick<RequestLogEntry, "fault" | "latencyMs">): void {
    if (entry.fault === "rate-limit") return; // refused before any decision
    if (entry.latencyMs > 0) this.counts.landed++;
    else this.counts.handled++;
    for (const wake of [...this.waiters]) wake();
  }

  /** Lands what is due before operation `op` (those its own operation left, and those drawn for it), then starts it. */
  async beforeOp(op: number): Promise<void> {
    const due = this.held.filter(
      ({ landing, op: of }) => of < op && (!("beforeOp" in landing) || landing.beforeOp <= op),
    );
    this.op = op;
    await this.land(due);
  }

  /** Resolves once every request decided so far is handled, held ones apart. */
  settled(): Promise<void> {
    return this.until(() => this.counts.handled >= this.counts.decided, "requests");
  }

  /** Lands every answer still held; the scenario is over. */
  async stop(): Promise<void> {
    await this.land(this.held);
    await this.settled();
    this.active = false;
  }

  /** Lets every held answer go without waiting (a scenario that threw): later tests see none held. */
  abandon(): void {
    for (const answer of this.held) answer.release();
    this.held = [];
    this.active = false;
  }

  private landingOf(endpoint: string): Landing {
    if (!/\/(create|delete|update)$/.test(endpoint)) return { afterRequests: 1, seen: 0 };
    const r = this.draw();
    if (r < 0.2) return { afterRequests: 1, seen: 0 };
    if (r < 0.4) return { afterRequests: 2, seen: 0 };
    return { beforeOp: this.op + 1 + Math.floor(this.draw() * LATEST_LANDING) };
  }

  private land(answers: SlowAnswers["held"]): Promise<void> {
    if (answers.length === 0) return Promise.resolve();
    this.held = this.held.filter((answer) => !answers.includes(answer));
    for (const answer of answers) answer.release();
    const released = (this.counts.released += answers.length);
    return this.until(() => this.counts.landed >= released, "slow answers released");
  }

  /**
   * Resolves once `done()` holds, checked as the emulator logs requests. A request the emulator
   * never logs (its handler threw) fails the scenario after a minute, naming what was awaited,
   * rather than at jest's limit.
   */
  private until(done: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${what} were never handled by the emulator (${JSON.stringify(this.counts)})`));
      }, UNHANDLED_MS);
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
    });
  }
}

describe("providers under faults (200 operations per failure rate)", () => {
  const emulator = useEmulator();

  beforeAll(async () => {
    forgetConfig();
    const request = configureRequest({
      "emailDelivery:baseUrl": emulator().emailApi.url,
      "emailDelivery:apiKey": emulator().emailApi.apiKey,
    });
    await domainProvider.configure(request);
    await routeProvider.configure(request);
  });
  afterAll(() => {
    setClientDefaults({});
    emulator().faults.set([]);
  });

  /** The scenario's slow answers, while one runs (the tests after it delay theirs for a set time). */
  const slow = new SlowAnswers();
  afterEach(() => slow.abandon()); // after a scenario that threw: nothing stays held
  let slowDecided = 0;
  beforeAll(() => {
    const em = emulator();
    const faults = em.faults;
    const decide = faults.decide.bind(faults);
    faults.decide = (endpoint) => {
      const decision = decide(endpoint);
      if (slow.active) return slow.decide(endpoint, decision);
      if (decision.latencyMs > 0) slowDecided++;
      return decision;
    };
    const log = em.requests;
    const add = log.add.bind(log);
    log.add = (entry) => {
      add(entry);
      if (slow.active) slow.logged(entry);
    };
  });
  /**
   * Waits until every answer the emulator was told to delay has landed (it logs a request once
   * handled): an event, not a guess at how long that takes on this machine.
   */
  const slowLanded = async () => {
    const landed = () =>
      emulator()
        .requests.all()
        .filter((entry) => entry.latencyMs > 0).length;
    while (landed() < slowDecided) await new Promise((resolve) => setTimeout(resolve, 20));
  };

  /**
   * Resolves once no request of this process's clients is in flight (none holds a socket of the
   * connection pool or waits for one), twice in a row: a request that ends may start the next.
   */
  const clientIdle = async () => {
    const agent = processRuntime().httpAgent;
    const busy = () =>
      [agent.sockets, agent.requests].some((byHost) => Object.values(byHost).some((list) => list?.length));
    for (let idle = 0; idle < 2; idle = busy() ? 0 : idle + 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  /** Client settings for the next provider call, counting its requests into `attempts`. */
  const clientDefaults = (attempts: AttemptRecord[], random: () => number, slowOp: boolean) =>
    setClientDefaults({
      requestTimeoutMs: slowOp ? SLOW_OP_TIMEOUT_MS : REQUEST_TIMEOUT_MS,
      retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 2, maxDelayMs: 10 },
      random,
      onAttempt: (attempt) => attempts.push(attempt),
    });

  /**
   * A failure is acceptable only as a transient one after the whole retry budget (the client's
   * error, kind "transient", `attempts` at the cap or past it by the 429s, which the cap does not
   * count; or a provider's wrapper around one), or as a
   * create whose answer was lost while an object of its name now exists (`AnswerLostObjectExists`:
   * nothing proves whose it is, so it is named and left). Anything else (validation, not-found, a
   * plain conflict, "already exists") is a misreading.
   */
  const classify = (error: unknown): { transient: boolean; label: string; namedAfterLoss?: number } => {
    for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as Error).cause, depth++) {
      if (isAnswerLostObjectExists(e)) {
        // The answer was lost and an object of the name exists: left alone and named, never taken.
        return {
          transient: false,
          label: "answer lost, the object found named",
          namedAfterLoss: e.existing.id,
        };
      }
      if (isEmailApiError(e)) {
        if (e.kind === "transient" && e.attempts! >= MAX_ATTEMPTS) {
          return { transient: true, label: depth === 0 ? "transient" : "transient (wrapped)" };
        }
        return { transient: false, label: `${e.kind} after ${e.attempts} attempts: ${e.message}` };
      }
    }
    const message = (error as Error)?.message ?? String(error);
    return { transient: false, label: `not an API error: ${message}` };
  };

  /**
   * The id of the object a refusal names as the holder of the name: the client's conflict
   * (`existing`), or the provider's message, which names it after the service refused the create
   * (`… already exists on domain 4 (id 17) …`).
   */
  const conflictOver = (error: unknown): number | undefined => {
    for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as Error).cause, depth++) {
      if (isEmailApiError(e) && e.kind === "conflict" && e.existing) return e.existing.id;
    }
    const named = /already exists on domain \d+ \(id (\d+)\)/.exec((error as Error)?.message ?? "");
    return named ? Number(named[1]) : undefined;
  };

  async function runScenario(rate: number, seed: number): Promise<RateResult> {
    const em = emulator();
    const pct = Math.round(rate * 100);
    const choose = seededRandom(seed);
    const jitter = seededRandom(seed + 1);
    em.faults.set([], seed);
    slow.start(seed + 2);
    const logStart = em.requests.all().length;

    const ops: OpRecord[] = [];
    const violations: string[] = [];
    const liveDomains: TrackedDomain[] = [];
    const deletedDomains: TrackedDomain[] = [];
    /** Domains whose delete failed: Pulumi keeps them in state and deletes again later. */
    const domainsToDelete: TrackedDomain[] = [];
    /** Names of domain creates that failed: their domain may exist (an orphan), or not. */
    const failedDomainNames = new Set<string>();
    const liveRoutes: TrackedRoute[] = [];
    const deletedRoutes: TrackedRoute[] = [];
    const routesToDelete: TrackedRoute[] = [];
    /** Route creates that failed: Pulumi runs the same create again on the next `up`. */
    const failedRouteCreates: RouteInputs[] = [];
    const failedRouteNames = new Set<string>();
    /** Routes that went with a domain whose delete may or may not have happened. */
    const routesInLimbo: TrackedRoute[] = [];
    let routeCounter = 0;

    const pick = <T>(list: T[]): T => list[Math.floor(choose() * list.length)];
    const take = <T>(list: T[]): T => list.splice(Math.floor(choose() * list.length), 1)[0];
    const domainInState = (id: string) => em.state.domains.some((d) => String(d.id) === id);
    const routeInState = (id: string) => {
      const route = em.state.routes.find((r) => String(r.id) === id);
      return !!route && em.state.domains.some((d) => d.id === route.domainId);
    };
    const routesOfDomain = (domainId: number, from: TrackedRoute[]) =>
      from.filter((route) => route.outs.domainId === domainId);
    const moveRoutes = (domainId: number, from: TrackedRoute[], to: TrackedRoute[]) => {
      for (const route of routesOfDomain(domainId, from)) {
        from.splice(from.indexOf(route), 1);
        to.push(route);
      }
    };

    /**
     * Runs one provider call with fresh client defaults; records the outcome. `designed` names a
     * failure that is the provider's designed answer to what the scenario did (given the error and
     * the requests of this call), else it is a violation unless transient.
     */
    async function operation<T>(
      kind: OpKind,
      call: () => Promise<T>,
      designed?: (error: unknown, sent: RequestLogEntry[]) => string | undefined,
    ): Promise<T | undefined> {
      await slow.beforeOp(ops.length + 1); // the slow answers drawn to land before it
      const attempts: AttemptRecord[] = [];
      const logAt = em.requests.all().length;
      const slowAt = choose() < slowShare(rate) ? (choose() < 0.7 ? 0 : 1) : undefined;
      clientDefaults(attempts, jitter, slowAt !== undefined);
      em.faults.set(rulesFor(rate, slowAt)); // no seed: the injector's sequence continues
      let outcome: { value: T } | { error: unknown };
      try {
        outcome = { value: await call() };
      } catch (error) {
        outcome = { error };
      } finally {
        em.faults.set([]);
      }
      // Every request it made is handled (a busy machine may answer one after the client gave up).
      await slow.settled();
      if ("value" in outcome) {
        ops.push({ kind, ok: true, attempts: attempts.length, sent: attempts });
        return outcome.value;
      }
      const { error } = outcome;
      const { transient, label, namedAfterLoss } = classify(error);
      // A create whose answer was lost, naming the object of its name it found: designed, when
      // that object is on the service (left as it was, for the user to adopt or delete).
      const named =
        namedAfterLoss !== undefined &&
        [...em.state.domains, ...em.state.routes].some((object) => object.id === namedAfterLoss)
          ? label
          : undefined;
      const expected = designed?.(error, em.requests.all().slice(logAt)) ?? named;
      ops.push({
        kind,
        ok: false,
        attempts: attempts.length,
        sent: attempts,
        failure: expected ?? label,
        ...(expected ? { designed: true as const } : {}),
      });
      if (!transient && !expected) violations.push(`op ${ops.length} ${kind}: failed with ${label}`);
      return undefined;
    }

    const checkRead = (what: string, id: string, result: pulumi.dynamic.ReadResult, exists: boolean) => {
      if (result.id === undefined && exists) violations.push(`${what} ${id}: read says gone, but it exists`);
      if (result.id !== undefined && !exists) violations.push(`${what} ${id}: read found it, but it is gone`);
      if (result.id !== undefined && result.id !== id)
        violations.push(`${what} ${id}: read answered id ${result.id}`);
    };

    while (ops.length < OPERATIONS) {
      const r = choose();
      if (liveDomains.length < 2 || r < 0.1) {
        // ---- domain create ----
        const name = uniqueDomain(`f${pct}x`);
        const created = await operation("domain.create", () => domainProvider.create({ name, adopt: false }));
        if (created) {
          const outs = created.outs;
          if (!domainInState(created.id))
            violations.push(`domain ${name}: created as ${created.id}, not in state`);
          if (outs.dnsRecords.length === 0)
            violations.push(`domain ${name}: created without its DNS records`);
          liveDomains.push({ id: created.id, outs });
        } else failedDomainNames.add(name);
      } else if (r < 0.18) {
        // ---- domain read (live or deleted) ----
        const domain = pick([...liveDomains, ...deletedDomains]);
        const read = await operation("domain.read", () => domainProvider.read(domain.id, domain.outs));
        if (read) checkRead("domain", domain.id, read, domainInState(domain.id));
      } else if (r < 0.23 || (r < 0.26 && domainsToDelete.length > 0)) {
        // ---- domain delete (a live one, or one whose delete failed before) ----
        const fromFailed = domainsToDelete.length > 0 && (r >= 0.23 || liveDomains.length <= 2);
        if (!fromFailed && liveDomains.length <= 2) continue;
        const domain = fromFailed ? take(domainsToDelete) : take(liveDomains);
        const done = await operation("domain.delete", async () => {
          await domainProvider.delete(domain.id, domain.outs);
          return true;
        });
        if (done) {
          if (domainInState(domain.id)) violations.push(`domain ${domain.id}: deleted, but still in state`);
          deletedDomains.push(domain);
          moveRoutes(domain.outs.domainId, liveRoutes, deletedRoutes);
          moveRoutes(domain.outs.domainId, routesInLimbo, deletedRoutes);
          for (const inputs of failedRouteCreates.filter((i) => i.domainId === domain.outs.domainId)) {
            failedRouteCreates.splice(failedRouteCreates.indexOf(inputs), 1);
          }
        } else {
          domainsToDelete.push(domain);
          moveRoutes(domain.outs.domainId, liveRoutes, routesInLimbo);
        }
      } else if (r < 0.28) {
        // ---- delete of an already deleted domain: must succeed ----
        if (deletedDomains.length === 0) continue;
        const domain = pick(deletedDomains);
        await operation("domain.delete-again", async () => {
          await domainProvider.delete(domain.id, domain.outs);
          return true;
        });
      } else if (r < 0.48) {
        // ---- route create (new, or the same create again after it failed) ----
        const again = failedRouteCreates.length > 0 && choose() < 0.5;
        if (!again && liveDomains.length === 0) continue;
        const inputs = again
          ? take(failedRouteCreates)
          : (
              await routeProvider.check(
                {},
                {
                  name: `r${pct}-${++routeCounter}`,
                  domainId: pick(liveDomains).outs.domainId,
                  endpointId: 1 + (routeCounter % 3),
                  spamMode: pick(["Mark", "Quarantine"]),
                },
              )
            ).inputs;
        let landed = false;
        const created = await operation(
          again ? "route.create-retry" : "route.create",
          () => routeProvider.create(inputs),
          (error, sent) => {
            // The failed create's request was made before its answer was lost: the route is on
            // the service, and this create cannot tell it from another party's. The service
            // refusing it, and the provider naming it without making anything, is the designed
            // answer (the user adopts or deletes it); claiming it or making a second one would not be.
            const holder = em.state.routes.find(
              (route) =>
                route.domainId === inputs.domainId &&
                route.name.toLowerCase() === String(inputs.name).toLowerCase(),
            );
            landed =
              again &&
              holder !== undefined &&
              conflictOver(error) === holder.id &&
              !sent.some((entry) => entry.effect?.created !== undefined);
            return landed ? "conflict: its earlier create landed" : undefined;
          },
        );
        if (created) {
          if (!routeInState(created.id))
            violations.push(`route ${String(inputs.name)}: created as ${created.id}, not in state`);
          liveRoutes.push({ id: created.id, outs: created.outs });
        } else if (!landed) {
          failedRouteCreates.push(inputs);
          failedRouteNames.add(String(inputs.name));
        }
      } else if (r < 0.62) {
        // ---- route read (live, deleted, or in limbo) ----
        const all = [...liveRoutes, ...deletedRoutes, ...routesInLimbo, ...routesToDelete];
        if (all.length === 0) continue;
        const route = pick(all);
        const read = await operation("route.read", () => routeProvider.read(route.id, route.outs));
        if (read) checkRead("route", route.id, read, routeInState(route.id));
      } else if (r < 0.78) {
        // ---- route update ----
        if (liveRoutes.length === 0) continue;
        const route = pick(liveRoutes);
        const news = {
          ...route.outs,
          spamMode: route.outs.spamMode === "Mark" ? pick(["Quarantine", "Fail"]) : "Mark",
          endpointId: 1 + ((route.outs.endpointId + (choose() < 0.5 ? 0 : 1)) % 3),
        };
        const updated = await operation("route.update", () =>
          routeProvider.update(route.id, route.outs, news),
        );
        if (updated) route.outs = updated.outs;
      } else if (r < 0.92) {
        // ---- route delete (live, in limbo, or one whose delete failed before) ----
        const source = [liveRoutes, routesInLimbo, routesToDelete].filter((list) => list.length > 0);
        if (source.length === 0) continue;
        const route = take(pick(source));
        const done = await operation("route.delete", async () => {
          await routeProvider.delete(route.id, route.outs);
          return true;
        });
        if (done) {
          if (routeInState(route.id)) violations.push(`route ${route.id}: deleted, but still in state`);
          deletedRoutes.push(route);
        } else routesToDelete.push(route);
      } else {
        // ---- delete of an already deleted route: must succeed ----
        if (deletedRoutes.length === 0) continue;
        const route = pick(deletedRoutes);
        await operation("route.delete-again", async () => {
          await routeProvider.delete(route.id, route.outs);
          return true;
        });
      }
    }

    // Let answers that were slower than the timeout land, as they do on the server.
    em.faults.set([]);
    await slow.stop();
    // Each operation's requests, counted once all have ended: a create's last lookup, cut short by
    // its try's timer, times out a moment after the call has given up, on a busy machine after its
    // operation has ended.
    await clientIdle();
    for (const op of ops) op.attempts = op.sent.length;
    setClientDefaults({
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 2, maxDelayMs: 10 },
    });
    const requests = em.requests.all().slice(logStart);

    // ---- duplicates ----
    const duplicates: string[] = [];
    const names = em.state.domains.map((d) => d.name.toLowerCase());
    for (const name of new Set(names)) {
      if (names.filter((n) => n === name).length > 1) duplicates.push(`two domains named ${name}`);
    }
    const routeKeys = em.state.routes.map((r) => `${r.domainId}/${r.name.toLowerCase()}`);
    for (const key of new Set(routeKeys)) {
      if (routeKeys.filter((k) => k === key).length > 1) duplicates.push(`two routes ${key}`);
    }
    // Every object made in this run (from the log), by natural key, and when each was deleted.
    const made = new Map<string, { id: string; seq: number; slow: boolean }[]>();
    const deletedAt = new Map<string, number>();
    for (const entry of requests) {
      const created = entry.effect?.created;
      if (created) {
        const key = `${created.kind} ${created.name}`;
        made.set(key, [
          ...(made.get(key) ?? []),
          { id: `${created.kind}/${created.id}`, seq: entry.seq, slow: entry.latencyMs > 0 },
        ]);
      }
      const deleted = entry.effect?.deleted;
      if (deleted) deletedAt.set(`${deleted.kind}/${deleted.id}`, entry.seq);
    }
    // A natural key made again is a duplicate, except a domain name made again once the earlier
    // domain of that name is deleted (a create after a destroy). A request slower than the timeout that lands after
    // the object its resend made was deleted is counted apart and printed ("late creates"): a known
    // defect, reproduced deterministically by the failing tests at the end of this file.
    const lateCreates: string[] = [];
    for (const [key, objects] of made) {
      for (let i = 1; i < objects.length; i++) {
        const earlier = objects[i - 1];
        const earlierGone = (deletedAt.get(earlier.id) ?? Infinity) < objects[i].seq;
        if (objects[i].slow && earlierGone) lateCreates.push(`${key} (${objects[i].id})`);
        else if (!(key.startsWith("domain ") && earlierGone)) {
          duplicates.push(`${key} made ${objects.length} times (${objects.map((o) => o.id).join(", ")})`);
          break;
        }
      }
    }
    // Everything of this run still on the service is tracked, or the orphan of a create that
    // failed (Pulumi runs that create again, and the provider refuses what it finds: the user adopts
    // or deletes it), or a late create counted above.
    const trackedIds = new Set(
      [...liveDomains, ...domainsToDelete]
        .map((d) => `domain/${d.id}`)
        .concat([...liveRoutes, ...routesInLimbo, ...routesToDelete].map((r) => `route/${r.id}`)),
    );
    const late = new Set(lateCreates.map((text) => text.replace(/.*\((.*)\)$/, "$1")));
    for (const [key, objects] of made) {
      for (const object of objects) {
        const [kind, id] = object.id.split("/");
        const exists =
          kind === "domain"
            ? em.state.domains.some((d) => String(d.id) === id)
            : em.state.routes.some((r) => String(r.id) === id);
        if (!exists || trackedIds.has(object.id) || late.has(object.id)) continue;
        const name = key.slice(key.indexOf(" ") + 1);
        const orphan =
          kind === "domain" ? failedDomainNames.has(name) : failedRouteNames.has(name.split("@")[0]);
        if (!orphan) duplicates.push(`${key} (${object.id}) left behind by an operation that succeeded`);
      }
    }

    // ---- what the scenario holds is what the service holds ----
    for (const domain of liveDomains) {
      if (!domainInState(domain.id)) violations.push(`domain ${domain.id} (${domain.outs.name}) is lost`);
    }
    for (const route of liveRoutes) {
      const actual = em.state.routes.find((r) => String(r.id) === route.id);
      if (!actual) violations.push(`route ${route.id} (${route.outs.name}) is lost`);
    }

    // ---- delete stays correct: every pending delete now succeeds, and the objects are gone ----
    for (const domain of domainsToDelete) {
      await domainProvider.delete(domain.id, domain.outs);
      if (domainInState(domain.id))
        violations.push(`domain ${domain.id}: deleted at the end, still in state`);
    }
    for (const route of [...routesToDelete, ...routesInLimbo]) {
      await routeProvider.delete(route.id, route.outs);
      if (routeInState(route.id)) violations.push(`route ${route.id}: deleted at the end, still in state`);
    }

    return { ops, requests, violations, duplicates, lateCreates };
  }

  const report = (rate: number, result: RateResult) => {
    const { ops, requests } = result;
    const faulted = requests.filter((e) => e.fault !== null || e.latencyMs > 0);
    const by = (outcome: string) => faulted.filter((e) => (e.fault ?? "slow") === outcome).length;
    const attempts = ops.map((op) => op.attempts);
    const failed = ops.filter((op) => !op.ok);
    console.log(
      `${String(Math.round(rate * 100)).padStart(2)}% faults: ${ops.length} operations, ` +
        `${ops.length - failed.length} succeeded, ${failed.length} failed (transient); ` +
        `${requests.length} requests, ${faulted.length} faulted ` +
        `(429 ${by("429")}, 503 ${by("503")}, drop ${by("drop")}, slow ${by("slow")}, commit-then-drop ${by("commit-then-drop")}); ` +
        `attempts per operation: max ${Math.max(...attempts)}, mean ${(
          attempts.reduce((a, b) => a + b, 0) / attempts.length
        ).toFixed(2)}` +
        (failed.length ? `; failed: ${failed.map((op) => `${op.kind} (${op.failure})`).join(", ")}` : "") +
        `; late creates landed after a delete: ${result.lateCreates.length}`,
    );
  };

  it.each([
    [0, 11],
    [0.1, 12],
    [0.3, 13],
    [0.5, 14],
  ])(
    "at %p of requests failing, every operation succeeds or fails transiently",
    async (rate, seed) => {
      const result = await runScenario(rate, seed);
      report(rate, result);

      expect(result.ops).toHaveLength(OPERATIONS);
      expect(result.violations).toEqual([]);
      expect(result.duplicates).toEqual([]);
      // (A read may send nothing: it can reuse a list another read of the same refresh fetched.)
      if (rate === 0) expect(result.ops.every((op) => op.ok)).toBe(true);
      else {
        // Every kind of fault was exercised.
        const kinds = new Set(result.requests.map((e) => e.fault ?? (e.latencyMs > 0 ? "slow" : "none")));
        expect([...kinds].sort()).toEqual(["429", "503", "commit-then-drop", "drop", "none", "slow"]);
      }
      // Every failure but a designed answer used the whole budget (the client's attempts, and the requests counted).
      for (const op of result.ops.filter((o) => !o.ok && !o.designed))
        expect(op.attempts).toBeGreaterThanOrEqual(MAX_ATTEMPTS);
    },
    SCENARIO_TIMEOUT_MS,
  );

  /**
   * Found by the scenario above (its "late creates"): a create whose first request is slower than
   * the request timeout is looked up, not found (it has not landed yet), and sent again; the resend
   * succeeds. The first request still lands later, as on a real server: once the object is deleted,
   * it makes it again, an object no stack knows. A known limitation of a create call without an
   * idempotency key (README, Limitations; docs/reliability.md): nothing the client can see tells it the slow request
   * is still coming. The two `it.failing` cases pin today's behaviour and start failing the day it
   * is fixed (e.g. by a service that accepts an idempotency key).
   */
  describe("a create answered slower than the request timeout, then deleted at once", () => {
    /** Far past the timeout below: the resend and the delete are done long before it lands. */
    const LATE_MS = 1_500;
    beforeEach(() => {
      setClientDefaults({
        requestTimeoutMs: 300, // 30 times what the other requests take on a busy machine
        retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 2, maxDelayMs: 10 },
      });
      emulator().requests.clear();
    });
    afterEach(() => emulator().faults.set([]));
    // The request log is cleared before each test: count only this test's slow answers.
    beforeEach(() => (slowDecided = 0));
    const settle = slowLanded;

    it.failing("leaves no route behind: its natural key is made once", async () => {
      const em = emulator();
      const domain = await domainProvider.create({ name: uniqueDomain("late-route"), adopt: false });
      const inputs = (
        await routeProvider.check({}, { name: "late", domainId: Number(domain.id), endpointId: 1 })
      ).inputs;
      em.faults.set([{ endpoints: "routes/create", latencyMs: LATE_MS, times: 1 }]);
      const route = await routeProvider.create(inputs);
      await routeProvider.delete(route.id, route.outs);
      expect(em.state.routes.some((r) => String(r.id) === route.id)).toBe(false);
      await settle();

      const made = em.requests.all().filter((e) => e.effect?.created?.kind === "route");
      const left = em.state.routes.filter((r) => String(r.domainId) === domain.id && r.name === "late");
      // Fails: made twice (the resend's route, then the slow request's after the delete), one left.
      expect({ made: made.length, left: left.length }).toEqual({ made: 1, left: 0 });
    });

    it.failing("leaves no domain behind: the name can be created again", async () => {
      const em = emulator();
      const name = uniqueDomain("late-domain");
      em.faults.set([{ endpoints: "domains/create", latencyMs: LATE_MS, times: 1 }]);
      const domain = await domainProvider.create({ name, adopt: false });
      await domainProvider.delete(domain.id, domain.outs);
      expect(em.state.domains.some((d) => String(d.id) === domain.id)).toBe(false);
      await settle();

      // Fails: the slow request made the domain again after the delete, so the next create (a
      // `pulumi up` after `destroy`) is refused with "already exists … not in this stack's state".
      await expect(domainProvider.create({ name, adopt: false })).resolves.toMatchObject({
        outs: { name },
      });
    });

    /**
     * A late landing inside one domain create: the first request is slow (it times out at the
     * client), the resend is made by the service and its answer lost, and the slow request lands
     * after. The client's lookup finds the domain the resend made, which nothing proves is this
     * call's (another stack's create of the name looks the same), so the create fails naming it:
     * never claimed, never deleted to be made again. The slow request is then refused (the name
     * is held), so one domain of that name is left, which the error names.
     *
     * The order is held by the emulator, not by latencies (which a busy machine reorders): the
     * first create waits until both lookups' lists have been answered. Only the request timeout
     * (1.5 s) is real, and nothing waits on its exactness.
     */
    it("a slow create and a resend whose answer is lost: the domain found is neither claimed nor deleted", async () => {
      const em = emulator();
      setClientDefaults({
        requestTimeoutMs: 1_500,
        retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 2, maxDelayMs: 10 },
      });
      let open: () => void = () => undefined;
      const late = new Promise<void>((resolve) => (open = resolve)); // the first create lands
      const answered = (endpoint: string) => em.requests.all().filter((e) => e.endpoint === endpoint).length;
      const until = async (condition: () => boolean) => {
        while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
      };
      let creates = 0;
      const decide = em.faults.decide;
      em.faults.decide = (endpoint) => {
        const decision = decide.call(em.faults, endpoint);
        if (endpoint !== "domains/create") return decision;
        creates += 1;
        if (creates === 1) return { ...decision, hold: late }; // times out at the client
        if (creates === 2) return { ...decision, outcome: "commit-then-drop" }; // the resend
        return decision;
      };
      const listsBefore = answered("domains/list");
      const createsBefore = answered("domains/create");
      const deletesBefore = answered("domains/delete");
      const sequence = (async () => {
        // The lookups after the first request timed out (nothing yet) and after the resend's answer was lost.
        await until(() => answered("domains/list") >= listsBefore + 2);
        open();
      })();
      const name = uniqueDomain("late-resend");
      let outcome: { created: string } | { error: string };
      try {
        outcome = await domainProvider.create({ name, adopt: false }).then(
          (created) => ({ created: created.outs.name as string }),
          (error: unknown) => ({ error: (error as Error).message }),
        );
        await until(() => answered("domains/create") >= createsBefore + 2); // the slow one, answered at last
      } finally {
        em.faults.decide = decide;
        open();
      }
      await sequence;
      const left = em.state.domains.filter((d) => d.name === name);
      expect(left).toHaveLength(1);
      expect(answered("domains/delete")).toBe(deletesBefore);
      expect(outcome).toEqual({
        error: expect.stringContaining(
          `Domain ${name}: the service's answer to create was lost, and a domain of that name now exists (id ${left[0].id}`,
        ),
      });
    });
  });

  /**
   * Found by the scenario on a loaded machine: a create whose answer was lost looks, finds nothing,
   * and sends again; the object of its name appears meanwhile (the lost request landing late, or
   * another party's create: nothing tells which); the resend is refused on the create's last
   * attempt, so the client has no try left to look again and fails with the refusal, marked
   * outcome unknown. The provider then listed, found the object, and said this stack did not
   * create it: a claim nothing proves, when its own lost request may have made it. It must report
   * the lost answer and name the object, as when its lookup finds it.
   *
   * The order is held by the emulator, not by timing: the first create is dropped unanswered, and
   * the object is added before the resend is handled. No request waits for a timeout.
   */
  describe("a resend refused after a lost answer, on the create's last attempt", () => {
    const ATTEMPTS = 3; // the create, the lookup, the resend
    beforeEach(() =>
      setClientDefaults({
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        retry: { maxAttempts: ATTEMPTS, baseDelayMs: 2, maxDelayMs: 10 },
      }),
    );

    /** Runs `create` with the first request to `endpoint` dropped and `appear()` done before the second is handled. */
    const withLateObject = async <T>(
      endpoint: string,
      appear: () => Promise<unknown>,
      create: () => Promise<T>,
    ): Promise<{ error: unknown; sent: string[] }> => {
      const em = emulator();
      const decide = em.faults.decide;
      const sent: string[] = [];
      let creates = 0;
      em.faults.decide = (name) => {
        const decision = decide.call(em.faults, name);
        sent.push(name);
        if (name !== endpoint) return decision;
        creates += 1;
        if (creates === 1) return { ...decision, outcome: "drop" };
        if (creates === 2) return { ...decision, hold: appear() };
        return decision;
      };
      try {
        await create();
        return { error: undefined, sent };
      } catch (error) {
        return { error, sent };
      } finally {
        em.faults.decide = decide;
      }
    };

    it("a route: the one found is named as possibly this create's, not as another's", async () => {
      const em = emulator();
      const domain = await domainProvider.create({ name: uniqueDomain("refused-route"), adopt: false });
      const inputs = (
        await routeProvider.check({}, { name: "refused", domainId: Number(domain.id), endpointId: 1 })
      ).inputs;
      const { error, sent } = await withLateObject(
        "routes/create",
        () => em.emailApi.addRoute({ name: "refused", domain: Number(domain.id), endpointId: 1 }),
        () => routeProvider.create(inputs),
      );
      const left = em.state.routes.filter((r) => String(r.domainId) === domain.id && r.name === "refused");
      expect(left).toHaveLength(1);
      expect(sent.filter((name) => name === "routes/create")).toHaveLength(2);
      expect(sent).not.toContain("routes/delete");
      expect((error as Error)?.message).toContain(
        `Route "refused" on domain ${domain.id}: the service's answer to create was lost, and a route of that name on the domain now exists (id ${left[0].id})`,
      );
      expect(classify(error)).toMatchObject({ namedAfterLoss: left[0].id });
      // The service's refusal is kept in the cause, for whoever reads it.
      expect(((error as Error).cause as Error).message).toContain("the resend was refused:");
    });

    it("a domain: the one found is named as possibly this create's, not as another's", async () => {
      const em = emulator();
      const name = uniqueDomain("refused-domain");
      const { error, sent } = await withLateObject(
        "domains/create",
        () => em.emailApi.addDomain(name),
        () => domainProvider.create({ name, adopt: false }),
      );
      const left = em.state.domains.filter((d) => d.name === name);
      expect(left).toHaveLength(1);
      expect(sent.filter((endpoint) => endpoint === "domains/create")).toHaveLength(2);
      expect(sent).not.toContain("domains/delete");
      expect((error as Error)?.message).toContain(
        `Domain ${name}: the service's answer to create was lost, and a domain of that name now exists (id ${left[0].id}`,
      );
      expect(classify(error)).toMatchObject({ namedAfterLoss: left[0].id });
      // The service's refusal is kept in the cause, for whoever reads it.
      expect(((error as Error).cause as Error).message).toContain("the resend was refused:");
    });
  });
});
