import { MailDnsConfig, ResolverAddress } from "../config";
import { RequestEffect } from "../http/request-log";
import { ServerRecord } from "../store/state";
import { Store } from "../store/store";
import { Params } from "./params";

/** What `emailApiService` is built from. */
export interface EmailApiContext {
  store: Store;
  dns: MailDnsConfig;
  /** The installation's master key, for `server/create` (`X-Master-Key`). */
  masterKey: string;
  /** `127.0.0.1:<port>` of the DNS server the domain check queries; known only after it starts. */
  resolver: () => ResolverAddress;
}

/** One request as an action sees it: authenticated, params read. */
export interface ActionRequest extends EmailApiContext {
  params: Params;
}

/** An action authenticated with a server API key works on that server's objects only. */
export interface ServerActionRequest extends ActionRequest {
  server: ServerRecord;
}

/** A successful action: the envelope's `data`, and what it changed for the request log. */
export interface ActionResult {
  data: unknown;
  effect?: RequestEffect;
}

export type ServerAction = (request: ServerActionRequest) => ActionResult | Promise<ActionResult>;
export type MasterAction = (request: ActionRequest) => ActionResult | Promise<ActionResult>;
