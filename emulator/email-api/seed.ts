import { DomainRecord, MessageRecord, ServerRecord } from "../store/state";
import { Store } from "../store/store";
import { EmailApiContext, ServerActionRequest } from "./context";
import { DomainJson, domainJson, insertDomain, runDomainCheck, serverDomains } from "./domains";
import { Params } from "./params";
import { RouteJson, insertRoute, routeJson, serverRoutes } from "./routes";
import { insertServer } from "./servers";
import { sameText } from "./validation";

export interface SeedServerOptions {
  name: string;
  /** The key clients send in `X-Server-API-Key`. */
  apiKey: string;
  /** The SMTP relay password; the API refuses it. */
  smtpKey: string;
  /** HTTP endpoints routes can deliver to. */
  endpoints: { name: string; url: string }[];
}

/**
 * Makes sure a Live server with known keys exists, for the CLI and tests. Idempotent by name: an
 * existing server (say, from a state file) is returned unchanged, keys and endpoints included.
 */
export function seedServer(store: Store, options: SeedServerOptions): ServerRecord {
  const existing = store.state.servers.find((server) => sameText(server.name, options.name));
  if (existing) return existing;
  return insertServer(store, { ...options, mode: "Live" });
}

/**
 * A route as `routes/create` takes it, for the emulator's seeding (`emulator.emailApi.addRoute`).
 */
export interface SeedRouteInput {
  /** The local part (`support`), `*` for every address, or `__returnpath__`. @example "support" */
  name: string;
  /** The domain's name or id, on the emulator's server. @example "mail.example.com" */
  domain: string | number;
  /** The HTTP endpoint it delivers to (`emulator.state.endpoints`). @default the server's first endpoint */
  endpointId?: number;
  /** `Endpoint`, `Accept`, `Hold`, `Bounce` or `Reject`. @default "Endpoint" */
  mode?: string;
  /** `Mark`, `Quarantine` or `Fail`. @default "Mark" */
  spamMode?: string;
}

/** `request`'s server's domain named (or numbered) `domain`: its id, or 0, which no domain has. */
function domainIdOf(store: Store, server: ServerRecord, domain: string | number): number {
  if (typeof domain === "number") return domain;
  return serverDomains(store, server).find((candidate) => sameText(candidate.name, domain))?.id ?? 0;
}

/** The server's objects through the actions the API runs, without HTTP (see emulator/seeding.ts). */
export function serverSeeding(context: EmailApiContext, server: ServerRecord) {
  const request = (params: Params): ServerActionRequest => ({ ...context, server, params });
  return {
    addDomain: (name: string): Promise<DomainRecord> => insertDomain(request({ name })),
    checkDomain: async (id: number): Promise<DomainRecord> => (await runDomainCheck(request({ id }))).domain,
    addRoute: (input: SeedRouteInput): RouteJson => {
      const endpoints = context.store.state.endpoints.filter((endpoint) => endpoint.serverId === server.id);
      const params = {
        name: input.name,
        // A name the server does not hold is refused as an unknown id is: "Domain is invalid".
        domain_id: domainIdOf(context.store, server, input.domain),
        endpoint_id: input.endpointId ?? endpoints[0]?.id,
        mode: input.mode,
        spam_mode: input.spamMode,
      };
      return routeJson(insertRoute(request(params)).route);
    },
    domains: (): DomainJson[] => serverDomains(context.store, server).map(domainJson),
    routes: (): RouteJson[] => serverRoutes(context.store, server).map(routeJson),
    messages: (): MessageRecord[] =>
      context.store.state.messages
        .filter((message) => message.serverId === server.id)
        .map((message) => structuredClone(message)),
  };
}
