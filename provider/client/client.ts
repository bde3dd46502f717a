import { createHash } from "node:crypto";
import got, { type Got } from "got";
import {
  EmailApiError,
  emailApiError,
  EmailApiErrorDetails,
  ExistingObject,
  isEmailApiError,
  isObjectNotFound,
  withDetails,
} from "./errors";
import { Interpretation, interpretAnswer } from "./interpret";
import { outcomeOf, RequestOutcome } from "./adaptive-rate-limiter";
import { keyProblem } from "./key-check";
import { ListPage, nextPageStep, PagingContext, repeatedId } from "./pages";
import { processRuntime, rateLimiterFor } from "./process-runtime";
import { redact } from "./redact";
import { backoffDelay, defaultRetryPolicy, RetryPolicy } from "./retry";
import { ResponseSchemas, responseSchemas } from "./schemas";
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

export interface ClientSettings {
  /** The service's base URL; operation paths (`/api/v1/...`) are appended to it. */
  baseUrl: string;
  /** Server API key, sent as `X-Server-API-Key`. Needed by every operation but createServer. */
  apiKey?: string;
  /**
   * A second server API key of the same server, tried when the service says `apiKey` is not valid
   * (a key rotated since the stack config that `refresh` and `destroy` use was saved). Used from
   * then on by this client.
   */
  fallbackApiKey?: string;
  /**
   * Longest a request waits for its turn under this process's own limits (the in-flight cap, the
   * pace learned from 429s) before it fails as transient, unsent: for callers with a deadline of
   * their own. @default no limit: a burst against a slow service waits its turn
   */
  permitWaitMs?: number;
  /** Appended to the message of an auth failure: where the key came from, what to do. */
  authFailureHint?: string;
  /** Master key, sent as `X-Master-Key`. Needed by createServer only. */
  masterKey?: string;
  /** Time one request may take before it is abandoned. @default 30000 */
  requestTimeoutMs?: number;
  /** Time one `domains/check` request may take: the service does four DNS lookups. @default 60000 */
  checkTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Called after every request sent, retries included (for counting in tests and benchmarks). */
  onAttempt?: (attempt: AttemptRecord) => void;
  /** Source of jitter. @default Math.random */
  random?: () => number;
}

export interface ListOptions {
  /** Reuse an answer at most this old (ms) instead of asking again. @default 0: only in-flight ones */
  maxAgeMs?: number;
  /**
   * Only an answer to a request sent after this call (shared with callers arriving meanwhile):
   * to confirm that an object is gone before saying so. Overrides `maxAgeMs`.
   * @default false
   */
  fresh?: boolean;
}

export interface AttemptRecord {
  operation: string;
  attempt: number;
  /** "ok", or the error kind. */
  outcome: "ok" | EmailApiError["kind"];
  httpStatus?: number;
  code?: string;
}

type Auth = "server" | "master";

interface Operation<T> {
  operation: string;
  body: Record<string, unknown>;
  parse: (data: unknown) => T;
  auth?: Auth;
  timeoutMs?: number;
  policy?: Partial<RetryPolicy>;
  /**
   * What a retry may do after a try whose answer was lost (timeout, dropped connection, 5xx):
   * - "resend": the operation is idempotent (lists, checks, updates, deletes);
   * - "stop": never resend (sending a message twice would send two messages);
   * - a lookup by natural key: the lost request may have created the object, so look first and
   *   return it if it is there; resend only if it is not.
   */
  afterLostAnswer: "resend" | "stop" | { lookup: (timeoutMs: number) => Promise<T | undefined> };
  /**
   * A read changes nothing: a 2xx that is not the service's answer means a wrong base URL. On
   * anything else it is an answer lost after the service may have done the work.
   */
  read?: true;
  /** Turns an error on a retry after a lost answer into success (e.g. delete → already gone). */
  settleAfterLostAnswer?: (error: EmailApiError) => { value: T } | undefined;
}

/** A request this process held back past `permitWaitMs`: never sent. */
const HELD_BACK = "HELD_BACK";

/** Errors that prove the request never reached the service. */
const NOT_SENT_CODES = ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", HELD_BACK];

/**
 * A client for the email delivery service's API (Postal's legacy HTTP API, `/api/v1/...`).
 *
 * - Every failure is an EmailApiError with a kind: auth, not-found, conflict, validation, transient.
 * - Transient failures are retried with capped, jittered exponential backoff within an attempt cap
 *   and a time budget, honouring `Retry-After` with jitter on top. Others are never retried.
 * - Requests to one service with one key go through one rate limiter per process, which paces
 *   them at a rate learned from the service's 429s (see adaptive-rate-limiter.ts).
 * - A create whose answer was lost is not resent blindly: the object is looked up by its natural
 *   key first (domain name; route name + domain id).
 * - Concurrent lists of one kind share one request process-wide; writes through any client in the
 *   process invalidate it.
 *
 * Build one inside each provider method: it must not be captured by a serialized provider.
 */
export class EmailDeliveryClient {
  private readonly http: Got;
  private readonly policy: RetryPolicy;
  private readonly baseUrl: string;
  /** The server API key in use: `apiKey`, until the service refuses it and a fallback exists. */
  private apiKey: string | undefined;
  private schemaCache?: ResponseSchemas;

  constructor(private readonly settings: ClientSettings) {
    this.baseUrl = normalizeBaseUrl(settings.baseUrl, this.secrets());
    for (const [what, key] of [
      ["API key", settings.apiKey],
      ["fallback API key", settings.fallbackApiKey],
      ["master key", settings.masterKey],
    ] as const) {
      const problem = key === undefined ? undefined : keyProblem(key);
      if (problem) throw new Error(`The email delivery ${what} ${problem}. Nothing was sent.`);
    }
    this.apiKey = settings.apiKey;
    this.policy = { ...defaultRetryPolicy(), ...settings.retry };
    const runtime = processRuntime();
    this.http = got.extend({
      prefixUrl: this.baseUrl,
      agent: { http: runtime.httpAgent, https: runtime.httpsAgent },
      retry: { limit: 0 }, // retries are ours: they must know about lost answers and lookups
      throwHttpErrors: false,
      followRedirect: false,
      responseType: "text",
      headers: { "user-agent": "pulumi-email-delivery", accept: "application/json" },
    });
  }

  // ---- domains ----

  /**
   * All domains of the key's server. Concurrent calls share one request; with `maxAgeMs`, an
   * answer at most that old is reused (unless a write through this process came since).
   */
  listDomains(options: ListOptions = {}): Promise<readonly Domain[]> {
    if (options.fresh) return this.freshList("domains", () => this.fetchDomains());
    return processRuntime().lists.run(this.listKey("domains"), () => this.fetchDomains(), options.maxAgeMs);
  }

  /**
   * Adds a domain; the answer carries the DNS records to publish.
   *
   * Ownership (the API has no idempotency key): the domains are listed first, in a request sent
   * after this call began (shared with creates starting meanwhile). If the name is taken, nothing is sent and the error names the holder
   * (`existing`). If it is free, a domain of that name found after a lost or unreadable answer
   * can only have been made by this call's own request, so it is returned as `recovered`.
   * (What no list can rule out is another client creating the same name while this call runs,
   * between that list and the lookup; the provider then still refuses to delete a domain that
   * has routes.)
   */
  async createDomain(name: string): Promise<CreatedDomain> {
    const startedAt = Date.now();
    return this.write(["domains"], async () => {
      const find = (domains: readonly Domain[]) => domains.find((d) => sameDomainName(d.name, name));
      const holder = find(await this.freshList("domains", () => this.fetchDomains()));
      if (holder) throw nameTaken("domains/create", `a domain named ${name}`, holder);
      return this.execute<CreatedDomain>({
        operation: "domains/create",
        body: { name },
        parse: (data) => {
          const created = this.schemas().createdDomain.parse(data);
          // Another request's answer (a proxy's cache, a confused connection) is no answer to ours.
          if (!sameDomainName(created.domain.name, name)) {
            throw new Error(`the answer is about another domain, ${created.domain.name}`);
          }
          return { ...created, recovered: false };
        },
        afterLostAnswer: {
          lookup: async (timeoutMs) => {
            // One request, within what is left of the create's budget (429s included).
            const domain = find(await this.fetchDomains({ maxAttempts: 1, budgetMs: timeoutMs }, timeoutMs));
            // One made well before this call would have been in the list that proved the name free.
            if (!domain || madeBefore(domain.createdAt, startedAt)) return undefined;
            return { domain, dnsRecords: undefined, recovered: true };
          },
        },
      });
    });
  }

  /** Runs the service's DNS checks now and returns their results (which the list then shows). */
  checkDomain(id: number): Promise<DomainCheck> {
    return this.write(["domains"], () =>
      this.execute({
        operation: "domains/check",
        body: { id },
        parse: (data) => this.schemas().check.parse(data),
        timeoutMs: this.settings.checkTimeoutMs ?? 60_000,
        afterLostAnswer: "resend",
      }),
    );
  }

  /** Deletes a domain (the service deletes its routes with it). */
  async deleteDomain(id: number): Promise<void> {
    await this.write(["domains", "routes"], () =>
      this.execute<void>({
        operation: "domains/delete",
        body: { id },
        parse: () => undefined,
        afterLostAnswer: "resend",
        settleAfterLostAnswer: (error) => (isObjectNotFound(error) ? { value: undefined } : undefined),
      }),
    );
  }

  // ---- routes ----

  /** All routes of the key's server; shared and reused as `listDomains`. */
  listRoutes(options: ListOptions = {}): Promise<readonly Route[]> {
    if (options.fresh) return this.freshList("routes", () => this.fetchRoutes());
    return processRuntime().lists.run(this.listKey("routes"), () => this.fetchRoutes(), options.maxAgeMs);
  }

  /**
   * Adds a route. Ownership is proven as for `createDomain`: the routes are listed first, a route
   * of the same name on the domain stops the call with nothing sent, and after a lost answer only a
   * route identical to the request counts as this call's own.
   */
  async createRoute(input: CreateRouteInput): Promise<CreatedRoute> {
    const body: Record<string, unknown> = {
      name: input.name,
      domain_id: input.domainId,
      endpoint_id: input.endpointId,
    };
    if (input.mode !== undefined) body.mode = input.mode;
    if (input.spamMode !== undefined) body.spam_mode = input.spamMode;
    const sameName = (r: Route) =>
      r.domainId === input.domainId && r.name.toLowerCase() === input.name.toLowerCase();
    return this.write(["routes"], async () => {
      const holder = (await this.freshList("routes", () => this.fetchRoutes())).find(sameName);
      if (holder) {
        throw nameTaken("routes/create", `a route named ${input.name} on domain ${input.domainId}`, {
          id: holder.id,
          createdAt: null,
        });
      }
      return this.execute<CreatedRoute>({
        operation: "routes/create",
        body,
        parse: (data) => {
          const route = this.schemas().routeAnswer.parse(data);
          // Another request's answer is no answer to ours (an answer without a domain id may be).
          const about = route.domainId === null ? { ...route, domainId: input.domainId } : route;
          if (!sameName(about)) throw new Error(`the answer is about another route, ${route.name}`);
          return { route, recovered: false };
        },
        afterLostAnswer: {
          lookup: async (timeoutMs) => {
            const route = (await this.fetchRoutes({ maxAttempts: 1, budgetMs: timeoutMs }, timeoutMs)).find(
              (r) =>
                sameName(r) &&
                // Postal keeps no endpoint on a route whose mode does not deliver.
                (r.endpointId === input.endpointId ||
                  (r.endpointId === null && (input.mode ?? "Endpoint") !== "Endpoint")) &&
                r.mode === (input.mode ?? "Endpoint") &&
                r.spamMode === (input.spamMode ?? "Mark"),
            );
            return route && { route, recovered: true };
          },
        },
      });
    });
  }

  /** Changes a route in place. The domain of a route cannot be changed. */
  async updateRoute(input: UpdateRouteInput): Promise<Route> {
    const body: Record<string, unknown> = { id: input.id };
    if (input.name !== undefined) body.name = input.name;
    if (input.endpointId !== undefined) body.endpoint_id = input.endpointId;
    if (input.mode !== undefined) body.mode = input.mode;
    if (input.spamMode !== undefined) body.spam_mode = input.spamMode;
    return this.write(["routes"], async () => {
      const updated = await this.execute<Route | undefined>({
        operation: "routes/update",
        body,
        // The spec does not show update's answer: use it when it is a route, else read it back.
        parse: (data) => {
          const parsed = this.schemas().routeAnswer.safeParse(data);
          return parsed.success ? parsed.data : undefined;
        },
        afterLostAnswer: "resend",
      });
      if (updated) return updated;
      const route = (await this.fetchRoutes()).find((r) => r.id === input.id);
      if (!route) {
        throw emailApiError({
          operation: "routes/update",
          kind: "not-found",
          code: "RouteNotFound",
          serviceMessage: `route ${input.id} was updated but is no longer listed`,
        });
      }
      return route;
    });
  }

  async deleteRoute(id: number): Promise<void> {
    await this.write(["routes"], () =>
      this.execute<void>({
        operation: "routes/delete",
        body: { id },
        parse: () => undefined,
        afterLostAnswer: "resend",
        settleAfterLostAnswer: (error) => (isObjectNotFound(error) ? { value: undefined } : undefined),
      }),
    );
  }

  // ---- other operations ----

  /** Sends a message. Never resent after a lost answer: that could deliver it twice. */
  sendMessage(input: SendMessageInput): Promise<SentMessage> {
    const body: Record<string, unknown> = {
      to: input.to,
      cc: input.cc,
      bcc: input.bcc,
      from: input.from,
      sender: input.sender,
      subject: input.subject,
      tag: input.tag,
      reply_to: input.replyTo,
      plain_body: input.plainBody,
      html_body: input.htmlBody,
      headers: input.headers,
      attachments: input.attachments?.map((a) => ({
        name: a.name,
        content_type: a.contentType,
        data: a.data,
      })),
    };
    return this.execute({
      operation: "send/message",
      body: withoutUndefined(body),
      parse: (data) => this.schemas().sentMessage.parse(data),
      afterLostAnswer: "stop",
    });
  }

  /** Creates a server with the master key. Its keys are in the answer only: treat them as secrets. */
  createServer(input: CreateServerInput): Promise<CreatedServer> {
    return this.execute({
      operation: "server/create",
      auth: "master",
      body: { name: input.name, mode: input.mode },
      parse: (data) => this.schemas().createdServer.parse(data),
      afterLostAnswer: "stop",
    });
  }

  // ---- machinery ----

  private fetchDomains(policy?: Partial<RetryPolicy>, timeoutMs?: number): Promise<Domain[]> {
    return this.fetchList("domains/list", (data) => this.schemas().domainList.parse(data), policy, timeoutMs);
  }

  private fetchRoutes(policy?: Partial<RetryPolicy>, timeoutMs?: number): Promise<Route[]> {
    return this.fetchList("routes/list", (data) => this.schemas().routeList.parse(data), policy, timeoutMs);
  }

  /**
   * A whole list, following its pages when the answer is paged (pages.ts), all within one time
   * budget. A list that changes while it is paged is read again from the start, twice at most.
   */
  private async fetchList<T extends { id: number }>(
    operation: string,
    parse: (data: unknown) => ListPage<T>,
    policy: Partial<RetryPolicy> = {},
    timeoutMs?: number,
  ): Promise<T[]> {
    const deadline = Date.now() + (policy.budgetMs ?? this.policy.budgetMs);
    const readPage = (body: Record<string, unknown>) =>
      this.execute({
        operation,
        body,
        parse,
        policy: { ...policy, budgetMs: Math.max(1, deadline - Date.now()) },
        timeoutMs,
        afterLostAnswer: "resend",
        read: true,
      });
    for (let restarts = 0; ; restarts++) {
      const first = await readPage({});
      const items = [...first.items];
      const visited = new Set([1]);
      const at = (requested: number): PagingContext => ({
        requested,
        pagesRead: visited.size,
        collected: items.length,
        firstTotal: first.pagination?.total,
        visited,
      });
      let step = nextPageStep(first, at(1));
      while (step.next === "page") {
        const requested = step.page;
        const page = await readPage(
          step.perPage ? { page: requested, per_page: step.perPage } : { page: requested },
        );
        visited.add(requested);
        items.push(...page.items);
        step = nextPageStep(page, at(requested));
      }
      const repeated = step.next === "done" && visited.size > 1 ? repeatedId(items) : undefined;
      if (repeated !== undefined) {
        step = { next: "restart", reason: `object ${repeated} came back on two pages` };
      }
      if (step.next === "done") return items;
      if (step.next === "refuse" || restarts === 2) {
        throw emailApiError({
          operation,
          kind: "validation",
          code: "IncompleteList",
          serviceMessage: `the list is paged and could not be read to its end: ${step.reason}; nothing is read as deleted from a partial list`,
        });
      }
    }
  }

  /**
   * A list whose request was sent after this call began (the proof a create needs), shared with
   * the creates of the same kind that start meanwhile: a burst of creates lists twice, not once
   * each.
   */
  private freshList<T>(kind: string, fetch: () => Promise<T>): Promise<T> {
    return processRuntime().lists.runStartedAfterCall(this.listKey(kind), fetch);
  }

  /** Runs a write, making every client in the process forget in-flight lists of `kinds`. */
  private async write<T>(kinds: string[], run: () => Promise<T>): Promise<T> {
    const lists = processRuntime().lists;
    const invalidate = () => kinds.forEach((kind) => lists.invalidate(this.listKey(kind)));
    invalidate();
    try {
      return await run();
    } finally {
      invalidate();
    }
  }

  private listKey(kind: string): string {
    // Lists are shared only between clients that would get the same answer: same URL, same key.
    return `${this.baseUrl}#${fingerprint(this.apiKey)}#${kind}`;
  }

  /** Whose rate limit a request counts against: the service, as reached with the key it is sent with. */
  private rateScope(auth: Auth): string {
    return `${this.baseUrl}#${fingerprint(auth === "master" ? this.settings.masterKey : this.apiKey)}`;
  }

  /** Every key this client holds, for scrubbing texts. */
  private secrets(): (string | undefined)[] {
    return [this.settings.apiKey, this.settings.fallbackApiKey, this.settings.masterKey];
  }

  /** Switches to the fallback key once, when it differs from the refused one. */
  private useFallbackKey(): boolean {
    const fallback = this.settings.fallbackApiKey;
    if (!fallback || fallback === this.apiKey) return false;
    this.apiKey = fallback;
    return true;
  }

  private schemas(): ResponseSchemas {
    const runtime = processRuntime();
    return (this.schemaCache ??= runtime.schemas ??= responseSchemas());
  }

  /**
   * Runs an operation with retries. Each pass sends one request (the operation itself, or a lookup
   * by natural key after a lost answer), so `maxAttempts` bounds every request made, lookups
   * included, and each request's timeout is cut so that none outlives the time budget.
   */
  private async execute<T>(op: Operation<T>): Promise<T> {
    const policy = { ...this.policy, ...op.policy };
    const random = this.settings.random ?? Math.random;
    const started = Date.now();
    const lookup = typeof op.afterLostAnswer === "object" ? op.afterLostAnswer.lookup : undefined;
    const timeoutMs = op.timeoutMs ?? this.settings.requestTimeoutMs ?? 30_000;
    let attempts = 0;
    // Refused with 429: the service did nothing, so these count against the budget only.
    let refused = 0;
    // Waiting for this process's turn to send is not the service failing: not part of the budget.
    let queuedMs = 0;
    const elapsed = () => Date.now() - started - queuedMs;
    // Once an answer was lost, the request may have been applied, even later (a slow server).
    let answerLost = false;
    // "look": find what a lost request made before sending again; "confirm": a resend conflicted,
    // so find out whether the object it conflicts with is the one our lost request made.
    let next: "send" | "look" | "confirm" = "send";
    let conflict: EmailApiError | undefined;
    let lastError: EmailApiError | undefined;

    const hint = this.settings.authFailureHint;
    const fail = (cause: EmailApiError, extra: Partial<EmailApiErrorDetails> = {}) =>
      withDetails(cause, {
        operation: op.operation,
        attempts,
        outcomeUnknown: answerLost || undefined,
        ...(cause.kind === "auth" && hint ? { serviceMessage: `${cause.serviceMessage}. ${hint}` } : {}),
        ...extra,
      });

    for (;;) {
      const remaining = policy.budgetMs - elapsed();
      if (lastError && (attempts - refused >= policy.maxAttempts || remaining <= 0))
        throw fail(conflict ?? lastError);
      attempts++;
      const requestTimeout = Math.max(1, Math.min(timeoutMs, remaining));

      if (next !== "send") {
        const looked = await lookUp(lookup!, requestTimeout);
        if (looked.found !== undefined) return looked.found;
        if (looked.error) {
          if (looked.error.kind !== "transient") throw fail(looked.error, { outcomeUnknown: true });
          lastError = looked.error; // wait, then look again: never resend without knowing
        } else if (next === "confirm") {
          throw fail(conflict!); // the conflicting object is not one we made
        } else {
          next = "send"; // the lost request made nothing (yet): send again at once
          continue;
        }
      } else {
        const result = await this.send(op, attempts, requestTimeout);
        queuedMs += result.queuedMs;
        if (result.ok) {
          if (op.read && result.data === undefined) {
            // An empty success to a list: a catch-all or health route answered, not the service.
            throw fail(
              emailApiError({
                operation: op.operation,
                kind: "validation",
                serviceMessage: "answered with an empty body (is the base URL right?)",
              }),
            );
          }
          const parsed = this.parse(op, result.data);
          if (parsed.ok) return parsed.value;
          if (!lookup) throw fail(parsed.error);
          answerLost = true; // created, but the answer is unreadable: find the object instead
          next = "look";
          lastError = parsed.error;
          continue;
        }
        if (result.unreadableSuccess && op.read) throw fail(result.error);
        // A write answered 2xx but unreadably (cut short, a proxy's page): it may have been done.
        const error = result.unreadableSuccess ? asLostAnswer(result.error) : result.error;
        if (answerLost) {
          const settled = op.settleAfterLostAnswer?.(error);
          if (settled) return settled.value;
          if (lookup && (error.kind === "conflict" || error.kind === "validation")) {
            conflict = error;
            next = "confirm";
            lastError = error;
            continue;
          }
        }
        // A key the service says is not valid did nothing: send again at once with the other one.
        // (Not on other refusals: a suspended server or a proxy's 403 says nothing of the key.)
        if (isKeyRefused(error) && (op.auth ?? "server") === "server" && this.useFallbackKey()) continue;
        if (error.kind !== "transient") throw fail(error);
        if (error.httpStatus === 429) refused++;
        if (mayHaveBeenApplied(error)) {
          if (op.afterLostAnswer === "stop") throw fail(error, { outcomeUnknown: true });
          answerLost = true;
          if (lookup) next = "look";
        }
        lastError = error;
      }

      // Give up only when the wait the service asks for (or the bare backoff) does not fit; the
      // jitter on top is cut to leave the retry a second of its own.
      const least = lastError.retryAfterMs ?? 0;
      if (elapsed() + least >= policy.budgetMs) throw fail(conflict ?? lastError);
      const jittered = backoffDelay(attempts, policy, random, lastError.retryAfterMs);
      const delay = Math.max(least, Math.min(jittered, policy.budgetMs - elapsed() - 1000));
      if (elapsed() + delay >= policy.budgetMs) throw fail(conflict ?? lastError);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  private parse<T>(
    op: Operation<T>,
    data: unknown,
  ): { ok: true; value: T } | { ok: false; error: EmailApiError } {
    try {
      return { ok: true, value: op.parse(data) };
    } catch (error) {
      const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
      const detail = issues?.length
        ? issues
            .slice(0, 3)
            .map((issue) => `${issue.path.map(String).join(".") || "data"}: ${issue.message}`)
            .join("; ")
        : (error as Error).message;
      return {
        ok: false,
        error: emailApiError({
          operation: op.operation,
          kind: "validation",
          serviceMessage: `the answer has an unexpected shape (${detail})`,
        }),
      };
    }
  }

  /** One HTTP request, once the rate limiter lets it go (`queuedMs`: how long that took); never throws. */
  private async send<T>(
    op: Operation<T>,
    attempt: number,
    timeoutMs: number,
  ): Promise<Interpretation & { queuedMs: number }> {
    const auth = op.auth ?? "server";
    const key = auth === "master" ? this.settings.masterKey : this.apiKey;
    const secrets = this.secrets();
    let result: Interpretation;
    let queuedMs = 0;
    if (!key) {
      result = {
        ok: false,
        error: emailApiError({
          operation: op.operation,
          kind: "auth",
          serviceMessage:
            auth === "master"
              ? "no master key is configured for this client"
              : "no API key is configured for this client",
        }),
      };
    } else {
      const queuedFrom = Date.now();
      const limiter = rateLimiterFor(this.rateScope(auth));
      const waitMs = this.settings.permitWaitMs;
      const permit = await (waitMs === undefined ? limiter.acquire() : limiter.acquireWithin(waitMs));
      queuedMs = Date.now() - queuedFrom;
      if (!permit) {
        result = {
          ok: false,
          error: emailApiError({
            operation: op.operation,
            kind: "transient",
            code: HELD_BACK,
            serviceMessage: `not sent: held back ${queuedMs} ms by this process's own limit on requests to ${this.baseUrl}`,
          }),
        };
        return { ...result, queuedMs };
      }
      let outcome: RequestOutcome = "other";
      try {
        const response = await this.http.post(`api/v1/${op.operation}`, {
          json: op.body,
          headers: auth === "master" ? { "x-master-key": key } : { "x-server-api-key": key },
          timeout: { request: timeoutMs },
        });
        const retryAfter = response.headers["retry-after"];
        result = interpretAnswer(
          { operation: op.operation, httpStatus: response.statusCode, body: response.body, retryAfter },
          secrets,
        );
        outcome = outcomeOf(response.statusCode, result.ok ? undefined : result.error.retryAfterMs);
      } catch (error) {
        result = { ok: false, error: networkError(op.operation, this.baseUrl, timeoutMs, error, secrets) };
      } finally {
        permit.release(outcome);
      }
    }
    this.settings.onAttempt?.({
      operation: op.operation,
      attempt,
      outcome: result.ok ? "ok" : result.error.kind,
      httpStatus: result.ok ? undefined : result.error.httpStatus,
      code: result.ok ? undefined : result.error.code,
    });
    return { ...result, queuedMs };
  }
}

export function createClient(settings: ClientSettings): EmailDeliveryClient {
  return new EmailDeliveryClient(settings);
}

/** Clocks of client and service may differ by this much. */
const CLOCK_SKEW_MS = 60_000;

/** True when `createdAt` is well before `time` (clock skew allowed); false when unknown. */
function madeBefore(createdAt: string | null, time: number): boolean {
  const made = createdAt ? Date.parse(createdAt) : NaN;
  return !Number.isNaN(made) && made < time - CLOCK_SKEW_MS;
}

/** Domain names are case-insensitive, and a trailing dot changes nothing. */
export function sameDomainName(a: string, b: string): boolean {
  const normal = (name: string) => name.trim().toLowerCase().replace(/\.$/, "");
  return normal(a) === normal(b);
}

/** Runs a lookup, turning a service error into a value so the retry loop can weigh it. */
async function lookUp<T>(
  lookup: (timeoutMs: number) => Promise<T | undefined>,
  timeoutMs: number,
): Promise<{ found?: T; error?: EmailApiError }> {
  try {
    return { found: await lookup(timeoutMs) };
  } catch (error) {
    if (isEmailApiError(error)) return { error };
    throw error;
  }
}

/** The service says the key itself is not valid (Postal's code, or a plain 401). */
function isKeyRefused(error: EmailApiError): boolean {
  return error.kind === "auth" && (error.code === "InvalidServerAPIKey" || error.httpStatus === 401);
}

/** An unreadable 2xx to a write: as if the answer was lost on the way. */
function asLostAnswer(error: EmailApiError): EmailApiError {
  return withDetails(error, {
    kind: "transient",
    serviceMessage: `${error.serviceMessage.replace(/ \(is the base URL right\?\)$/, "")}, so the outcome is unknown`,
  });
}

/**
 * The error for a create that was not sent because the name is taken: this call did not make the
 * holder, so nothing may claim it.
 */
function nameTaken(operation: string, what: string, holder: ExistingObject): EmailApiError {
  return emailApiError({
    operation,
    kind: "conflict",
    code: "AlreadyExists",
    serviceMessage: `${what} already exists (id ${holder.id}); the create was not sent`,
    existing: { id: holder.id, createdAt: holder.createdAt },
  });
}

/** A 429 or 503 was refused before any work; a refused connection never arrived. */
function mayHaveBeenApplied(error: EmailApiError): boolean {
  if (error.httpStatus === 429 || error.httpStatus === 503) return false;
  return !(error.code !== undefined && NOT_SENT_CODES.includes(error.code));
}

function networkError(
  operation: string,
  baseUrl: string,
  timeoutMs: number,
  error: unknown,
  secrets: readonly (string | undefined)[],
): EmailApiError {
  const code = (error as { code?: string }).code ?? "ERR_NETWORK";
  const name = (error as { name?: string }).name;
  let serviceMessage: string;
  if (name === "TimeoutError") serviceMessage = `no answer from ${baseUrl} within ${timeoutMs} ms`;
  else if (NOT_SENT_CODES.includes(code)) serviceMessage = `could not connect to ${baseUrl} (${code})`;
  else serviceMessage = `the connection to ${baseUrl} failed before an answer arrived (${code})`;
  // Only the code and our own words: got's error carries the request options, headers included.
  // The base URL is ours too, but a key pasted into it (in any letter case) must not show.
  return emailApiError({
    operation,
    kind: "transient",
    code,
    serviceMessage: redact(serviceMessage, secrets),
  });
}

function normalizeBaseUrl(baseUrl: string, secrets: readonly (string | undefined)[]): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    // Redacted: a key pasted into the wrong setting must not reach a log.
    throw new Error(
      `The email delivery base URL "${redact(baseUrl, secrets)}" is not a valid URL (expected e.g. https://postal.example.com).`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`The email delivery base URL must use http or https, not ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new Error(
      "The email delivery base URL must not contain credentials; configure the API key instead.",
    );
  }
  url.search = "";
  url.hash = "";
  return url.toString().replace(/\/?$/, "/");
}

/** Identifies a key without holding it: list sharing is per key, and keys must not sit in memory maps. */
function fingerprint(key: string | undefined): string {
  return key ? createHash("sha256").update(key).digest("hex").slice(0, 16) : "none";
}

function withoutUndefined(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}
