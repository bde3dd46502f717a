/**
 * The emulator's whole state: plain JSON, so it can be written to a file and read back as is.
 * Records use the service's own field meanings; the HTTP layers shape them into responses.
 */

/** An API key's kind: `API` opens the HTTP API, `SMTP` the SMTP relay. */
export type CredentialType = "API" | "SMTP";
/** A domain's DNS check status, as Postal sets it. */
export type CheckStatus = "OK" | "Missing" | "Invalid";

/** A mail server: what API keys, domains, endpoints and routes belong to. */
export interface ServerRecord {
  /** Numeric id. */
  id: number;
  /** Opaque id. */
  uuid: string;
  /** The server's name. */
  name: string;
  /** Its short name in URLs. */
  permalink: string;
  /** `Live` or `Development`. */
  mode: string;
  /** When it was created (ISO 8601). */
  createdAt: string;
}

/** An API or SMTP key of a server. */
export interface CredentialRecord {
  /** The server it opens. */
  serverId: number;
  /** Which interface it opens. */
  type: CredentialType;
  /** Its name. */
  name: string;
  /** The key itself (a secret). */
  key: string;
}

/** An HTTP endpoint a route can deliver to (Postal's HTTPEndpoint). */
export interface EndpointRecord {
  /** Numeric id: what routes' `endpoint_id` holds. */
  id: number;
  /** Opaque id. */
  uuid: string;
  /** The server it belongs to. */
  serverId: number;
  /** Its name. */
  name: string;
  /** Where it would deliver (nothing is sent). */
  url: string;
}

/** A sending domain of a server, with its DKIM key and its DNS checks' last results. */
export interface DomainRecord {
  /** Numeric id. */
  id: number;
  /** Opaque id. */
  uuid: string;
  /** The server it belongs to. */
  serverId: number;
  /** The domain name, lowercase. */
  name: string;
  /** Postal's `dkim_identifier_string`: the six letters after `postal-` in the selector. */
  dkimIdentifierString: string;
  /** Base64 DER SubjectPublicKeyInfo, as it appears after `p=` in the DKIM record. */
  dkimPublicKey: string;
  /** The DKIM private key (PEM): it signs the domain's mail once its DKIM check is OK. */
  dkimPrivateKeyPem: string;
  /** The SPF check's status; null before the first check. */
  spfStatus: CheckStatus | null;
  /** Why the SPF check failed; null when it did not. */
  spfError: string | null;
  /** The DKIM check's status; null before the first check. */
  dkimStatus: CheckStatus | null;
  /** Why the DKIM check failed; null when it did not. */
  dkimError: string | null;
  /** The MX check's status; null before the first check. */
  mxStatus: CheckStatus | null;
  /** Why the MX check failed; null when it did not. */
  mxError: string | null;
  /** The return-path check's status; null before the first check. */
  returnPathStatus: CheckStatus | null;
  /** Why the return-path check failed; null when it did not. */
  returnPathError: string | null;
  /** When its DNS was last checked (ISO 8601); null before the first check. */
  dnsCheckedAt: string | null;
  /** When it was created (ISO 8601). */
  createdAt: string;
}

/** An inbound route: mail for a name at a domain, handed to an endpoint. */
export interface RouteRecord {
  /** Numeric id. */
  id: number;
  /** Opaque id. */
  uuid: string;
  /** The server it belongs to. */
  serverId: number;
  /** The domain it matches. */
  domainId: number;
  /** The endpoint it delivers to; null when its mode does not deliver. */
  endpointId: number | null;
  /** The name it matches at the domain (`*` for any). */
  name: string;
  /** `Endpoint`, `Bounce`, `Hold` or `Reject`. */
  mode: string;
  /** `Mark`, `Quarantine` or `Fail`. */
  spamMode: string;
  /** The route's token, part of its address. */
  token: string;
  /** When it was created (ISO 8601). */
  createdAt: string;
}

/** A message accepted by `send/message`, one record per recipient as Postal stores them. */
export interface MessageRecord {
  /** Numeric id. */
  id: number;
  /** The message's token. */
  token: string;
  /** The `Message-ID`. */
  messageId: string;
  /** The server that accepted it. */
  serverId: number;
  /** The recipient this record is for. */
  rcptTo: string;
  /** The `From` address. */
  from: string;
  /** The `Sender` address; null when not given. */
  sender: string | null;
  /** The `To` addresses. */
  to: string[];
  /** The `Cc` addresses. */
  cc: string[];
  /** The `Bcc` addresses. */
  bcc: string[];
  /** The `Reply-To` address; null when not given. */
  replyTo: string | null;
  /** The subject; null when not given. */
  subject: string | null;
  /** The tag; null when not given. */
  tag: string | null;
  /** The plain-text body; null when not given. */
  plainBody: string | null;
  /** The HTML body; null when not given. */
  htmlBody: string | null;
  /** Extra headers, by name. */
  headers: Record<string, string>;
  /** The attachments' names, types and sizes (their content is not kept). */
  attachments: {
    /** The file name. */
    name: string;
    /** The MIME type. */
    contentType: string;
    /** The decoded size in bytes. */
    size: number;
  }[];
  /** When it was accepted (ISO 8601). */
  createdAt: string;
  /**
   * The message as Postal would hand it to the recipient's server (RFC 5322, CRLF): its
   * DKIM-Signature first, then `X-Postal-MsgID`, then the message `send/message` made, attachments
   * included. "" for a message stored before the emulator kept it.
   */
  raw: string;
  /** The envelope sender (SMTP `MAIL FROM`): `<server token>@<return path host>`. */
  mailFrom: string;
  /** The address the message leaves from: what a receiver checks SPF for. */
  clientIp: string;
  /** The name the sending host gives in `HELO`/`EHLO`. */
  helo: string;
}

/** A Cloudflare zone the stand-in holds. */
export interface ZoneRecord {
  /** 32 lowercase hex characters, as Cloudflare's ids are. */
  id: string;
  /** The zone's name. */
  name: string;
  /** When it was created (ISO 8601). */
  createdOn: string;
}

/** A Cloudflare DNS record as the stand-in stores it (names are FQDNs, lowercase). */
export interface CloudflareDnsRecord {
  /** 32 lowercase hex characters, as Cloudflare's ids are. */
  id: string;
  /** The zone it belongs to. */
  zoneId: string;
  /** The record's name (FQDN, lowercase). */
  name: string;
  /** The record type (`TXT`, `MX`, `CNAME`, …). */
  type: string;
  /** The record's content, as Cloudflare stores it (TXT content quoted or bare, as written). */
  content: string;
  /** TTL in seconds; 1 means automatic. */
  ttl: number;
  /** Whether Cloudflare proxies it. */
  proxied: boolean;
  /** The MX priority; null for other types. */
  priority: number | null;
  /** The record's comment; null when none. */
  comment: string | null;
  /** The record's tags (`name:value`). */
  tags: string[];
  /** Per-type settings, as Cloudflare returns them. */
  settings: Record<string, unknown>;
  /** When it was created (ISO 8601). */
  createdOn: string;
  /** When it was last changed (ISO 8601). */
  modifiedOn: string;
  /** When its comment was last changed; null when never set. */
  commentModifiedOn: string | null;
  /** When its tags were last changed; null when never set. */
  tagsModifiedOn: string | null;
}

/** Everything the emulator holds, as stored (and as a state file holds it). */
export interface EmulatorState {
  /** The shape's version: a state file of another version is refused. */
  version: 1;
  /** The next numeric id of each kind of object. */
  nextId: {
    /** The next server's id. */
    server: number;
    /** The next endpoint's id. */
    endpoint: number;
    /** The next domain's id. */
    domain: number;
    /** The next route's id. */
    route: number;
    /** The next message's id. */
    message: number;
  };
  /** The mail servers (one, seeded at start, unless `server/create` made more). */
  servers: ServerRecord[];
  /** The servers' API and SMTP keys. */
  credentials: CredentialRecord[];
  /** The servers' HTTP endpoints. */
  endpoints: EndpointRecord[];
  /** The sending domains. */
  domains: DomainRecord[];
  /** The inbound routes. */
  routes: RouteRecord[];
  /** The messages accepted, one record per recipient. */
  messages: MessageRecord[];
  /**
   * The installation's own DKIM key (Postal's `signing.key`): it signs the mail of domains whose
   * DKIM check is not OK, as `d=<dns.return_path_domain>`. Made at the emulator's first start.
   */
  signingKey?: {
    /** Base64 DER SubjectPublicKeyInfo, as published after `p=`. */
    publicKey: string;
    /** The private key (PEM). */
    privateKeyPem: string;
  };
  /** What the Cloudflare stand-in holds. */
  cloudflare: {
    /** Its zones. */
    zones: ZoneRecord[];
    /** Its zones' DNS records. */
    records: CloudflareDnsRecord[];
  };
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
