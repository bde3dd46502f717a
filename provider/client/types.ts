/**
 * What the client returns: the service's records in camelCase. Parsing is lenient (see
 * schemas.ts): statuses, modes and purposes outside the known sets are kept as strings, and
 * `null` statuses (a domain never checked) are kept as `null`.
 */

/** A DNS check status: OK, Missing or Invalid in Postal; null before the first check. */
export type CheckStatus = "OK" | "Missing" | "Invalid" | (string & {});

export interface Domain {
  id: number;
  uuid: string;
  name: string;
  spfStatus: CheckStatus | null;
  dkimStatus: CheckStatus | null;
  mxStatus: CheckStatus | null;
  returnPathStatus: CheckStatus | null;
  createdAt: string | null;
}

export type DnsRecordPurpose = "spf" | "dkim" | "mx" | "return_path" | (string & {});

/** A DNS record the service asks to be published for a domain. `name` is the FQDN. */
export interface DnsRecord {
  purpose: DnsRecordPurpose;
  type: string;
  name: string;
  content: string;
  priority?: number;
}

export interface CreatedDomain {
  domain: Domain;
  /**
   * The records to publish. The service returns them only in the answer to create, so they are
   * undefined when that answer was lost and the domain was found by name afterwards.
   */
  dnsRecords: DnsRecord[] | undefined;
  /** True when the create's answer was lost and the domain was found by name afterwards. */
  recovered: boolean;
}

export interface DomainCheck {
  spfStatus: CheckStatus | null;
  spfError: string | null;
  dkimStatus: CheckStatus | null;
  dkimError: string | null;
  mxStatus: CheckStatus | null;
  mxError: string | null;
  returnPathStatus: CheckStatus | null;
  returnPathError: string | null;
}

export type RouteMode = "Endpoint" | "Bounce" | "Hold" | "Reject" | (string & {});
export type SpamMode = "Mark" | "Quarantine" | "Fail" | (string & {});

export interface Route {
  id: number;
  uuid: string;
  name: string;
  /** Null only for Postal's return-path route. */
  domainId: number | null;
  /** Null when the mode does not deliver to an endpoint. */
  endpointId: number | null;
  mode: RouteMode;
  spamMode: SpamMode;
}

export interface CreateRouteInput {
  name: string;
  domainId: number;
  endpointId: number;
  /** @default "Endpoint" (the service's default) */
  mode?: RouteMode;
  /** @default "Mark" (the service's default) */
  spamMode?: SpamMode;
}

export interface CreatedRoute {
  route: Route;
  /** True when the create's answer was lost and the route was found by name afterwards. */
  recovered: boolean;
}

export interface UpdateRouteInput {
  id: number;
  name?: string;
  endpointId?: number;
  mode?: RouteMode;
  spamMode?: SpamMode;
}

export interface SendMessageInput {
  to?: string[];
  cc?: string[];
  bcc?: string[];
  from: string;
  sender?: string;
  subject?: string;
  tag?: string;
  replyTo?: string;
  plainBody?: string;
  htmlBody?: string;
  headers?: Record<string, string>;
  attachments?: { name: string; contentType: string; data: string }[];
}

export interface SentMessage {
  messageId: string;
  /** Per recipient address: the stored message's id and token. */
  messages: Record<string, { id: number; token: string }>;
}

export interface CreateServerInput {
  name: string;
  /** `Live` or `Development`. */
  mode: string;
}

export interface CreatedServer {
  id: number | undefined;
  uuid: string | undefined;
  name: string;
  permalink: string | undefined;
  mode: string | undefined;
  /** A secret: shown once. */
  apiKey: string | undefined;
  /** A secret: shown once. */
  smtpKey: string | undefined;
}
