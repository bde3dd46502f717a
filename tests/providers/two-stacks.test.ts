import type { FaultRule } from "../../emulator";
import { uniqueDomain, useEmulator } from "../support/emulator";
import {
  isHostCallError,
  ProviderHost,
  Props,
  rpcSecret,
  startProviderHost,
  urnFor,
} from "../support/provider-host";
import { loaderTexts } from "../support/providers";

/**
 * Two stacks, one service (issue 36). Two `pulumi up`s are two provider processes that share
 * nothing: here, two real dynamic-provider hosts (stacks A and B), driven over gRPC as the engine
 * drives them, against one emulator. The service has no idempotency key and refuses a duplicate
 * name, so after a lost answer nothing can tell this call's object from the other stack's. For a
 * domain and for a route, with the fault on either stack and the other stack's create landing
 * either while the faulted stack recovers or after it is done, this proves:
 * - no object of one stack is deleted, claimed or changed by the other (the service's objects,
 *   compared by id, name, created_at and, for routes, endpoint and modes, before and after; and
 *   no delete or update in the request log but the faulted stack's delete of its own object);
 * - each stack either holds its own object (the id its create returned is the object of that name
 *   on the service) or failed with the error that says why, naming the object that holds the name;
 * - the service holds one object of the name, never two;
 * - a refresh of each stack's recorded resources agrees with the service.
 *
 * Sequencing is deterministic, without sleeps: a fault rule with `times: 1` hits the faulted
 * stack's request (the other stack sends nothing until that request has met it); "while it
 * recovers", the emulator holds the faulted stack's next request of that call (its list after a
 * lost create, its resent delete) until the other stack's create has returned (`holdFollowUp`).
 *
 * The expected outcomes are those of issue 36: no list before a create; after a lost answer, a
 * list, and an object of the name found then is never claimed, changed or deleted (the stack fails
 * saying so); a delete is resent by id. Before it, a found object was taken as this call's (a
 * domain deleted and made again for its DNS records, a route identical to the request claimed).
 */

type Side = "A" | "B";
type Kind = "domain" | "route";
/**
 * When the other stack's create lands: between the faulted stack's lost answer and its next
 * request of that call, or once that call has ended.
 */
type Order = "while it recovers" | "after it is done";
/**
 * - holds: its create returned an id, the object of that name on the service;
 * - lost: failed, "the answer to create was lost" and an object of the name "now exists" (named);
 * - refused: failed, the name "already exists" and "this stack did not create it" (named);
 * - deleted: its delete succeeded and its object is gone.
 */
type Outcome = "holds" | "lost" | "refused" | "deleted";

const FAULTS = {
  "create dropped before it was handled": { operation: "create", rule: { dropRate: 1, times: 1 } },
  "create committed, its answer dropped": { operation: "create", rule: { commitThenDropRate: 1, times: 1 } },
  "delete committed, its answer dropped": { operation: "delete", rule: { commitThenDropRate: 1, times: 1 } },
} as const satisfies Record<string, { operation: "create" | "delete"; rule: Omit<FaultRule, "endpoints"> }>;
type FaultName = keyof typeof FAULTS;

// What each stack ends with, the faulted one and the other; one row per fault and order.
// prettier-ignore
const TABLE: [fault: FaultName, order: Order, faulted: Outcome, other: Outcome][] = [
  // A create that never reached the service, then the other stack's create: the name is theirs.
  ["create dropped before it was handled", "while it recovers", "lost",    "holds"  ],
  // Nothing was made, so the create is sent again; the other stack's create is refused later.
  ["create dropped before it was handled", "after it is done",  "holds",   "refused"],
  // The faulted create made the object, but nothing proves it was this call: no one holds it.
  ["create committed, its answer dropped", "while it recovers", "lost",    "refused"],
  ["create committed, its answer dropped", "after it is done",  "lost",    "refused"],
  // The delete is resent by id; the other stack's new object (a new id) is never touched.
  ["delete committed, its answer dropped", "while it recovers", "deleted", "holds"  ],
  ["delete committed, its answer dropped", "after it is done",  "deleted", "holds"  ],
];

interface Scenario {
  kind: Kind;
  fault: FaultName;
  order: Order;
  /** The stack whose request meets the fault. */
  side: Side;
  expected: { faulted: Outcome; other: Outcome };
}

const SCENARIOS: Scenario[] = TABLE.flatMap(([fault, order, faulted, other]) =>
  (["domain", "route"] as const).flatMap((kind) =>
    (["A", "B"] as const).map((side) => ({ kind, fault, order, side, expected: { faulted, other } })),
  ),
);

const emulator = useEmulator();
const texts = loaderTexts();

/** One stack: the host of its `pulumi up`, and the host of its later `pulumi refresh`. */
interface Stack {
  side: Side;
  up: ProviderHost;
  refresh: ProviderHost;
}
const stacks = {} as Record<Side, Stack>;

beforeAll(async () => {
  const configured = async (stack: string) => {
    const host = await startProviderHost({ stack });
    await host.configure({
      "emailDelivery:baseUrl": emulator().emailApi.url,
      "emailDelivery:apiKey": rpcSecret(emulator().emailApi.apiKey),
    });
    return host;
  };
  // The refresh hosts read no object of a scenario before its refresh (each scenario's objects
  // are made after the previous refresh), so what they read is what a new command would.
  // One at a time: each start has the helper's fixed 20 s, which four at once on a loaded
  // 2-core machine can pass.
  for (const side of ["A", "B"] as const) {
    const up = await configured(side.toLowerCase());
    stacks[side] = { side, up, refresh: await configured(side.toLowerCase()) };
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(stacks).flatMap((stack) => [stack.up.stop(), stack.refresh.stop()]));
});

describe("two stacks create the same name at once, one of them meeting a fault", () => {
  it.each(SCENARIOS)(
    "$kind: $fault on stack $side; the other stack creates the name $order",
    async (scenario) => {
      expect(await runScenario(scenario)).toEqual([]);
    },
    60_000,
  );
});

// ---- one scenario ----

/** The name both stacks create: a domain, or a route on a domain seeded for the scenario. */
interface Target {
  kind: Kind;
  name: string;
  domainId?: number;
  inputs: Props;
}

/** A resource as the stack's state records it once its create succeeded. */
interface Recorded {
  id: string;
  urn: string;
  properties: Props;
  inputs: Props;
  /** The object on the service when its create returned. */
  atCreate: ServiceObject | undefined;
  deleted: boolean;
}

type Attempt = { outcome: "holds" | "deleted"; id: string } | { outcome: "failed"; message: string };

let resources = 0;

/** Runs a scenario and returns what went wrong, one line each (none: it held). */
async function runScenario(s: Scenario): Promise<string[]> {
  const problems: string[] = [];
  const target = await newTarget(s.kind);
  const other = stacks[s.side === "A" ? "B" : "A"];
  const state: Record<Side, Recorded[]> = { A: [], B: [] };
  const fault = FAULTS[s.fault];
  const endpoint = `${s.kind}s/${fault.operation}`;
  const before = serviceObjects();
  const firstSeq = lastSeq() + 1;

  const attempts = await drive(s, target, state, problems);

  const after = serviceObjects();
  const log = emulator()
    .requests.all()
    .filter((entry) => entry.seq >= firstSeq);

  // The fault hit one request, the faulted stack's (the other sent nothing until it had).
  const faultedRequests = log.filter((entry) => entry.fault !== null);
  if (faultedRequests.length !== 1 || faultedRequests[0].endpoint !== endpoint)
    problems.push(
      `the fault hit ${faultedRequests.map((e) => `${e.endpoint} (${e.fault})`).join(", ") || "nothing"}`,
    );

  // Nothing of before the scenario changed (earlier scenarios' objects, the route's domain).
  for (const [key, object] of before) {
    const now = after.get(key);
    if (!now) problems.push(`${key} (${object.name}), which existed before, was deleted`);
    else if (!sameObject(now, object)) problems.push(`${key} was changed: ${show(object)} → ${show(now)}`);
  }

  // Each stack's objects are as its create left them; no id is held by both stacks.
  for (const side of ["A", "B"] as const) {
    for (const held of state[side].filter((r) => !r.deleted)) {
      const key = `${s.kind} ${held.id}`;
      const now = after.get(key);
      if (!now) problems.push(`stack ${side}'s ${key} is gone from the service`);
      else if (held.atCreate && !sameObject(now, held.atCreate))
        problems.push(`stack ${side}'s ${key} was changed: ${show(held.atCreate)} → ${show(now)}`);
    }
  }
  const heldIds = (side: Side) => state[side].filter((r) => !r.deleted).map((r) => r.id);
  for (const id of heldIds("A").filter((id) => heldIds("B").includes(id)))
    problems.push(`stacks A and B both hold ${s.kind} ${id}`);

  // No delete or update but the faulted stack's delete of its own object.
  const ownDeleted = fault.operation === "delete" ? state[s.side].map((r) => `${s.kind} ${r.id}`) : [];
  for (const entry of log) {
    const deleted = entry.effect?.deleted;
    if (deleted && !ownDeleted.includes(`${deleted.kind} ${deleted.id}`))
      problems.push(
        `${entry.endpoint} deleted ${deleted.kind} ${deleted.id}, which no stack asked to delete`,
      );
    const updated = entry.effect?.updated;
    if (updated) problems.push(`${entry.endpoint} changed ${updated.kind} ${updated.id}`);
  }

  // One object of the name on the service, never two (in every row, one stays).
  const named = [...after.values()].filter((object) => isTarget(object, target));
  if (named.length !== 1)
    problems.push(
      `the service holds ${named.length} ${s.kind}s named ${target.name}: ${named.map(show).join(", ")}`,
    );
  const holder = named[0];

  // Each stack's outcome, and what its error says.
  for (const role of ["faulted", "other"] as const) {
    const side = role === "faulted" ? s.side : other.side;
    const attempt = attempts[role];
    const outcome = classify(attempt);
    if (outcome !== s.expected[role])
      problems.push(`stack ${side} (${role}): expected "${s.expected[role]}", got ${explain(attempt)}`);
    if (outcome === "holds" && attempt.outcome === "holds" && holder && attempt.id !== String(holder.id))
      problems.push(
        `stack ${side} holds ${s.kind} ${attempt.id}, but the ${s.kind} of the name is ${holder.id}`,
      );
    if ((outcome === "lost" || outcome === "refused") && attempt.outcome === "failed" && holder)
      problems.push(...errorProblems(side, outcome, attempt.message, target, holder.id));
  }

  problems.push(...(await refreshProblems(s.kind, state, after)));
  return problems;
}

/**
 * The two stacks' calls, in the scenario's order: the faulted stack's create (or, for a delete,
 * the delete of the object it created first) meets the fault; the other stack's create lands
 * after that call is done, or while it recovers: after its lost answer, before its next request.
 */
async function drive(
  s: Scenario,
  target: Target,
  state: Record<Side, Recorded[]>,
  problems: string[],
): Promise<Record<"faulted" | "other", Attempt>> {
  const faulted = stacks[s.side];
  const other = stacks[s.side === "A" ? "B" : "A"];
  const fault = FAULTS[s.fault];
  const endpoint = `${s.kind}s/${fault.operation}`;
  // After a lost create, the stack lists; after a lost delete, it sends the delete again.
  const followUp = fault.operation === "create" ? `${s.kind}s/list` : endpoint;

  let faultedCall: () => Promise<Attempt>;
  if (fault.operation === "delete") {
    const made = await create(faulted, target, state, problems);
    if (made.outcome !== "holds") throw new Error(`setup: stack ${s.side}'s create failed: ${explain(made)}`);
    faultedCall = () => remove(faulted, state, made.id);
  } else {
    faultedCall = () => create(faulted, target, state, problems);
  }

  emulator().faults.set([{ endpoints: endpoint, ...fault.rule }]);
  try {
    if (s.order === "after it is done") {
      const faultedAttempt = await faultedCall();
      return { faulted: faultedAttempt, other: await create(other, target, state, problems) };
    }
    const gate = holdFollowUp(endpoint, followUp);
    try {
      const running = faultedCall();
      const held = await Promise.race([gate.arrived.then(() => true), running.then(() => false)]);
      if (!held) problems.push(`stack ${s.side} sent no ${followUp} after its lost answer`);
      const otherAttempt = await create(other, target, state, problems);
      gate.release();
      return { faulted: await running, other: otherAttempt };
    } finally {
      gate.restore();
    }
  } finally {
    emulator().faults.set([]);
  }
}

/** A domain name, or a route name on a domain seeded (not through HTTP) for this scenario. */
async function newTarget(kind: Kind): Promise<Target> {
  if (kind === "domain") {
    const name = uniqueDomain("race");
    return { kind, name, inputs: { name, __provider: texts.domain } };
  }
  const domain = await emulator().emailApi.addDomain(uniqueDomain("routes"));
  const endpointId = emulator().state.endpoints[0].id;
  const inputs = { name: "support", domainId: domain.id, endpointId, __provider: texts.route };
  return { kind, name: "support", domainId: domain.id, inputs };
}

/** The stack's create (check, then create, as `pulumi up` does), recorded in its state when it succeeds. */
async function create(
  stack: Stack,
  target: Target,
  state: Record<Side, Recorded[]>,
  problems: string[],
): Promise<Attempt> {
  const type = target.kind === "domain" ? "email-delivery:Domain" : "email-delivery:Route";
  const urn = urnFor(type, `race-${++resources}`, stack.side.toLowerCase());
  const { inputs, failures } = await stack.up.check(urn, {}, target.inputs);
  if (failures.length > 0) throw new Error(`check failed: ${JSON.stringify(failures)}`);
  const attempt = await settle(stack.up.create(urn, inputs));
  if (attempt.outcome === "failed") return attempt;
  const { id, properties } = attempt.value;
  const atCreate = serviceObjects().get(`${target.kind} ${id}`);
  if (!atCreate || !isTarget(atCreate, target))
    problems.push(
      `stack ${stack.side}'s create returned id ${id}, which is not the ${target.kind} ${target.name} on the service`,
    );
  state[stack.side].push({ id, urn, properties, inputs, atCreate, deleted: false });
  return { outcome: "holds", id };
}

/** The stack's delete of a resource of its state (`pulumi destroy`). */
async function remove(stack: Stack, state: Record<Side, Recorded[]>, id: string): Promise<Attempt> {
  const recorded = state[stack.side].find((r) => r.id === id)!;
  const attempt = await settle(stack.up.delete(id, recorded.urn, recorded.properties));
  if (attempt.outcome === "failed") return attempt;
  recorded.deleted = true;
  return { outcome: "deleted", id };
}

async function settle<T>(
  call: Promise<T>,
): Promise<{ outcome: "done"; value: T } | { outcome: "failed"; message: string }> {
  try {
    return { outcome: "done", value: await call };
  } catch (error) {
    if (!isHostCallError(error)) throw error;
    return { outcome: "failed", message: error.details };
  }
}

function classify(attempt: Attempt): Outcome | "failed otherwise" {
  if (attempt.outcome !== "failed") return attempt.outcome;
  if (/answer to create was lost/.test(attempt.message) && /now exists/.test(attempt.message)) return "lost";
  if (/already exists/.test(attempt.message) && /this stack did not create it/.test(attempt.message))
    return "refused";
  return "failed otherwise";
}

function explain(attempt: Attempt): string {
  return attempt.outcome === "failed"
    ? `an error: ${attempt.message}`
    : `"${attempt.outcome}" (id ${attempt.id})`;
}

/** What the error of a stack that does not hold the name must say: which object holds it, and what to do. */
function errorProblems(side: Side, outcome: "lost" | "refused", message: string, target: Target, id: number) {
  const problems: string[] = [];
  const says = (text: string | RegExp, what: string) => {
    if (typeof text === "string" ? !message.includes(text) : !text.test(message))
      problems.push(`stack ${side}'s error does not ${what}: ${message}`);
  };
  says(new RegExp(`\\bid ${id}\\b`), `name the ${target.kind} that holds the name (id ${id})`);
  if (outcome === "lost") {
    says("adopt", "say to adopt it if it is this stack's");
    says(/delete/i, "say to delete it on the service if it is this stack's");
    says(/(another|a different|other) name/i, "say to choose another name if it is not");
  } else if (target.kind === "domain") {
    says(
      `Domain ${target.name} already exists on the email service (id ${id}`,
      "say the domain already exists",
    );
  } else {
    says(
      `Route "${target.name}" already exists on domain ${target.domainId} (id ${id}) and this stack did not create it`,
      "say the route already exists",
    );
  }
  return problems;
}

/** `pulumi refresh` of each stack: present resources read back as the service has them, deleted ones as gone. */
async function refreshProblems(
  kind: Kind,
  state: Record<Side, Recorded[]>,
  service: Map<string, ServiceObject>,
): Promise<string[]> {
  const problems: string[] = [];
  for (const side of ["A", "B"] as const) {
    for (const recorded of state[side]) {
      const read = await settle(
        stacks[side].refresh.read(recorded.id, recorded.urn, recorded.properties, recorded.inputs),
      );
      const what = `stack ${side}'s refresh of ${kind} ${recorded.id}`;
      if (read.outcome === "failed") {
        problems.push(`${what} failed: ${read.message}`);
        continue;
      }
      const object = service.get(`${kind} ${recorded.id}`);
      if (!object) {
        if (read.value.id !== "")
          problems.push(`${what}: the service has none, but it read back as ${read.value.id}`);
        continue;
      }
      if (recorded.deleted) problems.push(`${what}: deleted by the stack, but the service still has it`);
      const expected =
        kind === "domain"
          ? { domainId: object.id, name: object.name }
          : {
              routeId: object.id,
              name: object.name,
              domainId: object.domainId,
              endpointId: object.endpointId,
              mode: object.mode,
              spamMode: object.spamMode,
            };
      const got = Object.fromEntries(Object.keys(expected).map((key) => [key, read.value.properties[key]]));
      if (read.value.id !== recorded.id || JSON.stringify(got) !== JSON.stringify(expected))
        problems.push(
          `${what} read ${read.value.id || "gone"} ${JSON.stringify(got)}; the service has ${show(object)}`,
        );
    }
  }
  return problems;
}

// ---- the service, as the emulator holds it ----

/** What is compared of a service object before and after. */
interface ServiceObject {
  id: number;
  name: string;
  createdAt: string;
  /** Routes only. */
  domainId?: number;
  endpointId?: number | null;
  mode?: string;
  spamMode?: string;
}

/** Every domain and route of the service, by `domain 12` / `route 3`. */
function serviceObjects(): Map<string, ServiceObject> {
  const { domains, routes } = emulator().state;
  const objects = new Map<string, ServiceObject>();
  for (const { id, name, createdAt } of domains) objects.set(`domain ${id}`, { id, name, createdAt });
  for (const { id, name, createdAt, domainId, endpointId, mode, spamMode } of routes)
    objects.set(`route ${id}`, { id, name, createdAt, domainId, endpointId, mode, spamMode });
  return objects;
}

/** Whether the object has the target's natural key (a domain's name; a route's name on its domain). */
function isTarget(object: ServiceObject, target: Target): boolean {
  const isRoute = object.domainId !== undefined;
  if (target.kind === "domain") return !isRoute && object.name === target.name;
  return isRoute && object.name === target.name && object.domainId === target.domainId;
}

function sameObject(a: ServiceObject, b: ServiceObject): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function show(object: ServiceObject): string {
  return JSON.stringify(object);
}

function lastSeq(): number {
  const all = emulator().requests.all();
  return all.length > 0 ? all[all.length - 1].seq : 0;
}

/**
 * Holds the faulted stack's next request of its call: the first request to `followUp` after a
 * request to `faulted` met its fault. `arrived` resolves when it comes; the emulator handles it
 * only after `release()` (the in-process `hold` of a fault decision). One request only: the other
 * stack's requests, all sent after it arrived, pass.
 */
function holdFollowUp(faulted: string, followUp: string) {
  const faults = emulator().faults;
  const decide = faults.decide;
  let lost = false;
  let holding = false;
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  faults.decide = (endpoint) => {
    const decision = decide.call(faults, endpoint);
    if (lost && !holding && endpoint === followUp) {
      holding = true;
      arrive();
      return { ...decision, hold: released };
    }
    if (endpoint === faulted && decision.outcome !== "pass") lost = true;
    return decision;
  };
  return {
    arrived,
    release,
    restore: () => {
      faults.decide = decide;
      release();
    },
  };
}
