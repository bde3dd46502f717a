/**
 * The emulator's whole state: plain JSON, so it can be written to a file and read back as is.
 * Records use the service's own field meanings; the HTTP layers shape them into responses.
 */

export type CredentialType = "API" | "SMTP";
export type CheckStatus = "OK" | "Missing" | "Invalid";

export interface ServerRecord {
  id: number;
  uuid: string;
  name: string;
  permalink: string;
  mode: string;
  createdAt: string;
}

export interface CredentialRecord {
  serverId: number;
  type: CredentialType;
  name: string;
  key: string;
}

/** An HTTP endpoint a route can deliver to (Postal's HTTPEndpoint). */
export interface EndpointRecord {
  id: number;
  uuid: string;
  serverId: number;
  name: string;
  url: string;
}

export interface DomainRecord {
  id: number;
  uuid: string;
  serverId: number;
  name: string;
  /** Postal's `dkim_identifier_string`: the six letters after `postal-` in the selector. */
  dkimIdentifierString: string;
  /** Base64 DER SubjectPublicKeyInfo, as it appears after `p=` in the DKIM record. */
  dkimPublicKey: string;
  dkimPrivateKeyPem: string;
  spfStatus: CheckStatus | null;
  spfError: string | null;
  dkimStatus: CheckStatus | null;
  dkimError: string | null;
  mxStatus: CheckStatus | null;
  mxError: string | null;
  returnPathStatus: CheckStatus | null;
  returnPathError: string | null;
  dnsCheckedAt: string | null;
  createdAt: string;
}

export interface RouteRecord {
  id: number;
  uuid: string;
  serverId: number;
  domainId: number;
  endpointId: number | null;
  name: string;
  mode: string;
  spamMode: string;
  token: string;
  createdAt: string;
}

/** A message accepted by `send/message`, one record per recipient as Postal stores them. */
export interface MessageRecord {
  id: number;
  token: string;
  messageId: string;
  serverId: number;
  rcptTo: string;
  from: string;
  sender: string | null;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string | null;
  subject: string | null;
  tag: string | null;
  plainBody: string | null;
  htmlBody: string | null;
  headers: Record<string, string>;
  attachments: { name: string; contentType: string; size: number }[];
  createdAt: string;
}

export interface ZoneRecord {
  /** 32 lowercase hex characters, as Cloudflare's ids are. */
  id: string;
  name: string;
  createdOn: string;
}

/** A Cloudflare DNS record as the stand-in stores it (names are FQDNs, lowercase). */
export interface CloudflareDnsRecord {
  id: string;
  zoneId: string;
  name: string;
  type: string;
  content: string;
  ttl: number;
  proxied: boolean;
  priority: number | null;
  comment: string | null;
  tags: string[];
  settings: Record<string, unknown>;
  createdOn: string;
  modifiedOn: string;
  commentModifiedOn: string | null;
  tagsModifiedOn: string | null;
}

export interface EmulatorState {
  version: 1;
  nextId: { server: number; endpoint: number; domain: number; route: number; message: number };
  servers: ServerRecord[];
  credentials: CredentialRecord[];
  endpoints: EndpointRecord[];
  domains: DomainRecord[];
  routes: RouteRecord[];
  messages: MessageRecord[];
  cloudflare: { zones: ZoneRecord[]; records: CloudflareDnsRecord[] };
}

export function emptyState(): EmulatorState {
  return {
    version: 1,
    nextId: { server: 1, endpoint: 1, domain: 1, route: 1, message: 1 },
    servers: [],
    credentials: [],
    endpoints: [],
    domains: [],
    routes: [],
    messages: [],
    cloudflare: { zones: [], records: [] },
  };
}
