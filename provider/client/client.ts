import { createDomainWithRecords, DomainCreation } from "./domain-creation";
import { createdDomainSchema, domainCheckSchema, domainListSchema } from "./domains";
import { isObjectNotFound } from "./errors";
import { execute, Operation, systemTime } from "./execute";
import { createdServerSchema, encodeMessage, encodeServer, sentMessageSchema } from "./messages";
import {
  answerLostObjectExists,
  findDomain,
  refuseIfMadeBefore,
  sameDomainName,
  sameRouteName,
} from "./natural-keys";
import { ListPage, readWholeList } from "./pages";
import { lookUpAfterLostAnswer } from "./lost-answer-lookup";
import { defaultRetryPolicy, RetryPolicy } from "./retry";
import {
  encodeCreateRoute,
  encodeUpdateRoute,
  routeAnswerSchema,
  routeListSchema,
  updatedRouteNotListed,
} from "./routes";
import type { ClientSettings, ListOptions } from "./settings";
import { domainChecked, domainDeleted, putObject, removeObject, routeWritten } from "./list-patches";
import { ListChanges, sharedList, writeThrough } from "./shared-lists";
import { Transport } from "./transport";
import type {
  CreatedDomain,
  CreatedRoute,
  CreatedServer,
  CreateRouteInput,
  CreateServerInput,
  Domain,
  DomainCheck,
  Route,
  SendMessageInput,
  SentMessage,
  UpdateRouteInput,
} from "./types";

/**
 * A client for the email delivery service's API (Postal's legacy HTTP API, `/api/v1/...`). Each
 * operation says what it sends, how its answer is read and what may be done when the answer is
 * lost; `execute` (execute.ts) runs it through the one retry loop (retry-loop.ts), and `Transport`
 * (transport.ts) sends through the process's rate limiter. Every failure is an EmailApiError with a
 * kind: auth, not-found, conflict, validation, transient. The providers get theirs from
 * `serviceClient()` (dynamic/connection.ts) when a method runs, after `configure()`.
 */
export class EmailDeliveryClient {
  private readonly transport: Transport;
  private readonly policy: RetryPolicy;

  constructor(private readonly settings: ClientSettings) {
    this.transport = new Transport(settings);
    this.policy = { ...defaultRetryPolicy(), ...settings.retry };
  }

  // ---- domains ----

  /**
   * All domains of the key's server. Concurrent calls share one request; with `maxAgeMs`, an
   * answer at most that old is reused, with every write through this process since applied to it.
   */
  listDomains(options: ListOptions = {}): Promise<readonly Domain[]> {
    return sharedList(this.transport.listKey("domains"), () => this.fetchDomains(), options);
  }

  /**
   * Adds a domain; the answer carries the DNS records to publish. Nothing is listed first: the
   * service refuses a name it holds, which is the proof the name was taken (the error then names no
   * holder; `createDomainWithRecords` lists to name it). After a lost or unreadable answer the
   * domains are listed: with no domain of that name the create is sent again; with one, whose it is
   * cannot be told (natural-keys.ts), so it is left alone and the call fails with
   * `AnswerLostObjectExists`, naming it.
   */
  async createDomain(name: string): Promise<CreatedDomain> {
    const startedAt = Date.now();
    const run = async () => {
      const created = await this.execute<CreatedDomain>({
        operation: "domains/create",
        body: { name },
        parse: (data) => {
          const created = createdDomainSchema.parse(data);
          // Another request's answer (a proxy's cache, a confused connection) is no answer to ours.
          if (!sameDomainName(created.domain.name, name)) {
            throw new Error(`the answer is about another domain, ${created.domain.name}`);
          }
          return created;
        },
        afterLostAnswer: {
          lookup: async (timeoutMs) => {
            const domain = await lookUpAfterLostAnswer(
              this.transport.listKey("domains looked up"),
              () => this.fetchDomains({ maxAttempts: 1, budgetMs: timeoutMs }, timeoutMs),
              timeoutMs,
              (listed) => findDomain(listed, name),
            );
            return domain && { id: domain.id, createdAt: domain.createdAt };
          },
          unproven: (holder) => answerLostObjectExists("domains/create", `a domain named ${name}`, holder),
        },
      });
      refuseIfMadeBefore(created.domain, startedAt);
      return created;
    };
    return this.write(run, { domains: (created) => putObject(created.domain) });
  }

  /** Adds a domain and gets its DNS records (domain-creation.ts): what was made, or why nothing was kept. */
  createDomainWithRecords(name: string): Promise<DomainCreation> {
    return createDomainWithRecords(this, name);
  }

  /** Runs the service's DNS checks now and returns their results (which the list then shows). */
  checkDomain(id: number): Promise<DomainCheck> {
    const run = () =>
      this.execute({
        operation: "domains/check",
        body: { id },
        parse: (data) => domainCheckSchema.parse(data),
        timeoutMs: this.settings.checkTimeoutMs ?? 60_000,
        afterLostAnswer: "resend",
      });
    // The service stores the statuses on the domain, so lists show them from now on.
    return this.write(run, { domains: (check) => domainChecked(id, check) });
  }

  /** Deletes a domain (the service deletes its routes with it). */
  deleteDomain(id: number): Promise<void> {
    const gone = domainDeleted(id);
    return this.write(() => this.deleteById("domains/delete", id), {
      domains: () => gone.domains,
      routes: () => gone.routes,
    });
  }

  // ---- routes ----

  /** All routes of the key's server; shared and reused as `listDomains`. */
  listRoutes(options: ListOptions = {}): Promise<readonly Route[]> {
    return sharedList(this.transport.listKey("routes"), () => this.fetchRoutes(), options);
  }

  /**
   * Adds a route. As for `createDomain`: nothing is listed first (the service refuses a route of
   * that name on the domain), and after a lost answer a route of that name found on the domain is
   * never taken for this call's, even when it is identical to the request: another stack declaring
   * the same route would have made the same one.
   */
  async createRoute(input: CreateRouteInput): Promise<CreatedRoute> {
    const run = () =>
      this.execute<CreatedRoute>({
        operation: "routes/create",
        body: encodeCreateRoute(input),
        parse: (data) => {
          const route = routeAnswerSchema.parse(data);
          // Another request's answer is no answer to ours (an answer without a domain id may be).
          if (!sameRouteName({ name: route.name, domainId: route.domainId ?? input.domainId }, input)) {
            throw new Error(`the answer is about another route, ${route.name}`);
          }
          return { route };
        },
        afterLostAnswer: {
          lookup: async (timeoutMs) => {
            const route = await lookUpAfterLostAnswer(
              this.transport.listKey("routes looked up"),
              () => this.fetchRoutes({ maxAttempts: 1, budgetMs: timeoutMs }, timeoutMs),
              timeoutMs,
              (listed) => listed.find((candidate) => sameRouteName(candidate, input)),
            );
            return route && { id: route.id, createdAt: null };
          },
          unproven: (holder) =>
            answerLostObjectExists(
              "routes/create",
              `a route named ${input.name} on domain ${input.domainId}`,
              holder,
            ),
        },
      });
    return this.write(run, {
      routes: ({ route }) => routeWritten(route, input.domainId),
    });
  }

  /** Changes a route in place. The domain of a route cannot be changed. */
  async updateRoute(input: UpdateRouteInput): Promise<Route> {
    const run = async () => {
      const updated = await this.execute<Route | undefined>({
        operation: "routes/update",
        body: encodeUpdateRoute(input),
        // The spec does not show update's answer: use it when it is a route, else read it back.
        parse: (data) => {
          const parsed = routeAnswerSchema.safeParse(data);
          return parsed.success ? parsed.data : undefined;
        },
        afterLostAnswer: "resend",
      });
      if (updated) return updated;
      const route = (await this.fetchRoutes()).find((r) => r.id === input.id);
      if (!route) throw updatedRouteNotListed(input.id);
      return route;
    };
    return this.write(run, { routes: (route) => routeWritten(route) });
  }

  /** Deletes a route by id. */
  deleteRoute(id: number): Promise<void> {
    return this.write(() => this.deleteById("routes/delete", id), { routes: () => removeObject(id) });
  }

  // ---- other operations ----

  /** Sends a message. Never resent after a lost answer: that could deliver it twice. */
  sendMessage(input: SendMessageInput): Promise<SentMessage> {
    return this.execute({
      operation: "send/message",
      body: encodeMessage(input),
      parse: (data) => sentMessageSchema.parse(data),
      afterLostAnswer: "stop",
    });
  }

  /** Creates a server with the master key. Its keys are in the answer only: treat them as secrets. */
  createServer(input: CreateServerInput): Promise<CreatedServer> {
    return this.execute({
      operation: "server/create",
      auth: "master",
      body: encodeServer(input),
      parse: (data) => createdServerSchema.parse(data),
      afterLostAnswer: "stop",
    });
  }

  // ---- machinery ----

  /** A delete; one resent after a lost answer that finds the object gone did its work. */
  private deleteById(operation: string, id: number): Promise<void> {
    return this.execute<void>({
      operation,
      body: { id },
      parse: () => undefined,
      afterLostAnswer: "resend",
      settleAfterLostAnswer: (error) => (isObjectNotFound(error) ? { value: undefined } : undefined),
    });
  }

  private fetchDomains(policy?: Partial<RetryPolicy>, timeoutMs?: number): Promise<Domain[]> {
    return this.fetchList("domains/list", (data) => domainListSchema.parse(data), policy, timeoutMs);
  }

  private fetchRoutes(policy?: Partial<RetryPolicy>, timeoutMs?: number): Promise<Route[]> {
    return this.fetchList("routes/list", (data) => routeListSchema.parse(data), policy, timeoutMs);
  }

  /** A whole list, every page of it (pages.ts) within one time budget. */
  private fetchList<T extends { id: number }>(
    operation: string,
    parse: (data: unknown) => ListPage<T>,
    policy: Partial<RetryPolicy> = {},
    timeoutMs?: number,
  ): Promise<T[]> {
    const deadline = Date.now() + (policy.budgetMs ?? this.policy.budgetMs);
    return readWholeList(operation, (body) =>
      this.execute({
        operation,
        body,
        parse,
        policy: { ...policy, budgetMs: Math.max(1, deadline - Date.now()) },
        timeoutMs,
        afterLostAnswer: "resend",
        read: true,
      }),
    );
  }

  /** Runs a write and applies its answer to the process's lists it changes (shared-lists.ts). */
  private write<T>(run: () => Promise<T>, changes: ListChanges<T>): Promise<T> {
    return writeThrough((kind) => this.transport.listKey(kind), run, changes);
  }

  private execute<T>(op: Operation<T>): Promise<T> {
    const transport = this.transport;
    return execute(op, {
      send: (request, attempt, timeoutMs) => transport.send(request, attempt, timeoutMs),
      useFallbackKey: () => transport.useFallbackKey(),
      policy: this.policy,
      requestTimeoutMs: this.settings.requestTimeoutMs ?? 30_000,
      random: this.settings.random ?? Math.random,
      clock: systemTime(),
      explain: this.settings,
    });
  }
}

/** A client of the email service with these settings: the same as `new EmailDeliveryClient(settings)`. */
export function createClient(settings: ClientSettings): EmailDeliveryClient {
  return new EmailDeliveryClient(settings);
}
