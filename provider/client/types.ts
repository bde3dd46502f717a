/**
 * What the client returns: the service's records in camelCase. Parsing is lenient (see
 * schemas.ts): statuses, modes and purposes outside the known sets are kept as strings, and
 * `null` statuses (a domain never checked) are kept as `null`.
 */

/** A DNS check status: OK, Missing or Invalid in Postal; null before the first check. */
export type CheckStatus = "OK" | "Missing" | "Invalid" | (string & {});

/**
 * Each of the service's DNS checks' status at its last check of the domain (`OK`, `Missing`,
 * `Invalid`); null before the first. The one declaration of these fields: the service's domain,
 * a check's answer, what the resources record and what `getDomain` returns all take them from here.
 */
export interface CheckStatuses {
  /** The SPF check's status at the last check; null before the first. */
  spfStatus: CheckStatus | null;
  /** The DKIM check's status at the last check; null before the first. */
  dkimStatus: CheckStatus | null;
  /** The MX check's status at the last check; null before the first. */
  mxStatus: CheckStatus | null;
  /** The return-path check's status at the last check; null before the first. */
  returnPathStatus: CheckStatus | null;
}

/** The status fields of {@link CheckStatuses}, in the order the service lists the checks. */
export const CHECK_STATUS_FIELDS = [
  "spfStatus",
  "dkimStatus",
  "mxStatus",
  "returnPathStatus",
] as const satisfies readonly (keyof CheckStatuses)[];

/** The statuses of `source` alone (a domain's, a check's), to record or return them. */
export function checkStatusesOf(source: CheckStatuses): CheckStatuses {
  const { spfStatus, dkimStatus, mxStatus, returnPathStatus } = source;
  return { spfStatus, dkimStatus, mxStatus, returnPathStatus };
}

/** A sending domain, as the service lists it. */
export interface Domain extends CheckStatuses {
  /** The service's numeric id: what check and delete take. */
  id: number;
  /** The service's opaque id. */
  uuid: string;
  /** The domain name, as created. */
  name: string;
  /** When the service created it (ISO 8601, UTC); null when the service did not say. */
  createdAt: string | null;
}

/**
 * Which check a DNS record the service asks for serves; other strings are kept as they come.
 */
export type DnsRecordPurpose = "spf" | "dkim" | "mx" | "return_path" | (string & {});

/** A DNS record the service asks to be published for a domain. `name` is the FQDN. */
export interface DnsRecord {
  /** Which check the record serves. */
  purpose: DnsRecordPurpose;
  /** The record type: `TXT`, `MX` or `CNAME`. */
  type: string;
  /** The record's fully qualified name. */
  name: string;
  /** The record's content, as the service gives it (TXT content unquoted). */
  content: string;
  /** The MX priority; unset for other types. */
  priority?: number;
}

/** What creating a domain returns. */
export interface CreatedDomain {
  /** The domain created. */
  domain: Domain;
  /**
   * The records to publish, which the service returns only in the answer to create; undefined
   * when that answer carried none (a deployment that does not send them).
   */
  dnsRecords: DnsRecord[] | undefined;
}

/** The answer to checking a domain's DNS: each check's status and, when it failed, why. */
export interface DomainCheck extends CheckStatuses {
  /** Why the SPF check failed; null when it did not. */
  spfError: string | null;
  /** Why the DKIM check failed; null when it did not. */
  dkimError: string | null;
  /** Why the MX check failed (for example, no MX record); null when it did not. */
  mxError: string | null;
  /** Why the return-path check failed; null when it did not. */
  returnPathError: string | null;
}

/** The route modes (what matching mail goes to): the one list the package checks and documents. */
export const ROUTE_MODES = ["Endpoint", "Bounce", "Hold", "Reject"] as const;
/** The spam modes (what happens to spam): the one list the package checks and documents. */
export const SPAM_MODES = ["Mark", "Quarantine", "Fail"] as const;

/** A route mode a `Route` may be given ({@link ROUTE_MODES}). */
export type KnownRouteMode = (typeof ROUTE_MODES)[number];
/** A spam mode a `Route` may be given ({@link SPAM_MODES}). */
export type KnownSpamMode = (typeof SPAM_MODES)[number];
/** What a route does with the mail it matches, as the service answers; other strings are kept as they come. */
export type RouteMode = KnownRouteMode | (string & {});
/** What a route does with mail that looks like spam, as the service answers; other strings are kept as they come. */
export type SpamMode = KnownSpamMode | (string & {});

/** An inbound route: mail for a name at a domain, handed to an endpoint. */
export interface Route {
  /** The service's numeric id: what update and delete take. */
  id: number;
  /** The service's opaque id. */
  uuid: string;
  /** The local part it matches (`support`), or `*` for every address at the domain. */
  name: string;
  /** Null only for Postal's return-path route. */
  domainId: number | null;
  /** Null when the mode does not deliver to an endpoint. */
  endpointId: number | null;
  /** What the route does with the mail it matches. */
  mode: RouteMode;
  /** What the route does with mail that looks like spam. */
  spamMode: SpamMode;
}

/** What creating a route takes. */
export interface CreateRouteInput {
  /** The local part it matches (`support`), or `*` for every address at the domain. */
  name: string;
  /** The id of the domain it matches. */
  domainId: number;
  /** The id of the endpoint it delivers to. */
  endpointId: number;
  /** @default "Endpoint" (the service's default) */
  mode?: RouteMode;
  /** @default "Mark" (the service's default) */
  spamMode?: SpamMode;
}

/** What creating a route returns. */
export interface CreatedRoute {
  /** The route created. */
  route: Route;
}

/** What updating a route takes: its id and the fields to change. */
export interface UpdateRouteInput {
  /** The id of the route to update. */
  id: number;
  /** A new name; unset keeps it. */
  name?: string;
  /** A new endpoint; unset keeps it. */
  endpointId?: number;
  /** A new mode; unset keeps it. */
  mode?: RouteMode;
  /** A new spam mode; unset keeps it. */
  spamMode?: SpamMode;
}

/** A message to send through the service's HTTP API. */
export interface SendMessageInput {
  /** The `To` addresses. */
  to?: string[];
  /** The `Cc` addresses. */
  cc?: string[];
  /** The `Bcc` addresses. */
  bcc?: string[];
  /** The `From` address, at one of the server's domains. */
  from: string;
  /** The `Sender` address, when it differs from `from`. */
  sender?: string;
  /** The subject. */
  subject?: string;
  /** A tag the service stores with the message. */
  tag?: string;
  /** The `Reply-To` address. */
  replyTo?: string;
  /** The plain-text body. */
  plainBody?: string;
  /** The HTML body. */
  htmlBody?: string;
  /** Extra headers, by name. */
  headers?: Record<string, string>;
  /** Files to attach, their content in base64. */
  attachments?: {
    /** The file name. */
    name: string;
    /** The MIME type. */
    contentType: string;
    /** The content, base64-encoded. */
    data: string;
  }[];
}

/** What sending a message returns. */
export interface SentMessage {
  /** The `Message-ID` the service gave the message. */
  messageId: string;
  /** Per recipient address: the stored message's id and token. */
  messages: Record<
    string,
    {
      /** The stored message's id. */
      id: number;
      /** The stored message's token. */
      token: string;
    }
  >;
}

/** What creating a server takes. */
export interface CreateServerInput {
  /** The server's name. */
  name: string;
  /** `Live` or `Development`. */
  mode: string;
}

/** What creating a server returns, its keys among it. */
export interface CreatedServer {
  /** The server's numeric id, when the service said. */
  id: number | undefined;
  /** The server's opaque id, when the service said. */
  uuid: string | undefined;
  /** The server's name. */
  name: string;
  /** The server's short name in the service's URLs, when the service said. */
  permalink: string | undefined;
  /** `Live` or `Development`, when the service said. */
  mode: string | undefined;
  /** A secret: shown once. */
  apiKey: string | undefined;
  /** A secret: shown once. */
  smtpKey: string | undefined;
}
