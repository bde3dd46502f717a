/**
 * Every text the emulated service sends back, worded exactly as Postal words it (its legacy API
 * controllers and model validations). Clients and tests match on these, so change them here only.
 */

/** Rails' `Array#to_sentence`: "a", "a and b", "a, b, and c". */
export function toSentence(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(", ")}, and ${items[items.length - 1]}`;
}

export const authTexts = {
  serverKeyMissing: "Must be authenticated as a server.",
  serverKeyInvalid: "The API token provided in X-Server-API-Key was not valid.",
  masterKeyMissing: "Must be authenticated with the master key.",
  masterKeyInvalid: "The master key provided in X-Master-Key was not valid.",
};

export const paramTexts = {
  missing: (name: string) => `\`${name}\` parameter is required but is missing`,
  notInteger: (name: string) => `\`${name}\` parameter should be an integer`,
  notString: (name: string) => `\`${name}\` parameter should be a string`,
};

export const notFoundTexts = {
  domain: (id: bigint) => `No domain with id ${id} found on this server.`,
  route: (id: bigint) => `No route with id ${id} found on this server.`,
};

/** Rails validation messages, completed by the attribute name into "Name is invalid" etc. */
export const validationTexts = {
  blank: "can't be blank",
  invalid: "is invalid",
  notInList: "is not included in the list",
  taken: "has already been taken",
  reserved: "is reserved",
  domainAlreadyAdded: "is already added",
};

export const routeTexts = {
  existsOnThisServer: "Route already exists",
  existsOnOtherServer: (permalink: string) => `Name is configured on the ${permalink} mail server`,
};

/** `LegacyAPI::SendController::ERROR_MESSAGES`. */
export const sendTexts = {
  NoRecipients: "There are no recipients defined to receive this message",
  NoContent: "There is no content defined for this e-mail",
  TooManyToAddresses: "The maximum number of To addresses has been reached (maximum 50)",
  TooManyCCAddresses: "The maximum number of CC addresses has been reached (maximum 50)",
  TooManyBCCAddresses: "The maximum number of BCC addresses has been reached (maximum 50)",
  FromAddressMissing: "The From address is missing and is required",
  UnauthenticatedFromAddress: "The From address is not authorised to send mail from this server",
  AttachmentMissingName: "An attachment is missing a name",
  AttachmentMissingData: "An attachment is missing data",
} as const;

export type SendErrorCode = keyof typeof sendTexts;

/** `HasDNSChecks` (app/models/concerns/has_dns_checks.rb), including its odd wording. */
export const dnsCheckTexts = {
  spfMissing: "No SPF record exists for this domain",
  spfWithoutInclude: (spfInclude: string) => `An SPF record exists but it doesn't include ${spfInclude}`,
  dkimMissing: (host: string) => `No TXT records were returned for ${host}`,
  dkimTooMany: (count: number, host: string) =>
    `There are ${count} records for at ${host}. There should only be one.`,
  dkimMismatch: (host: string) =>
    `The DKIM record at ${host} does not match the record we have provided. Please check it has been copied correctly.`,
  mxMissing: (domain: string) => `There are no MX records for ${domain}`,
  mxNoneOurs: "You have MX records but none of them point to us.",
  mxSomeMissing: (missing: readonly string[]) =>
    `MX ${missing.length === 1 ? "record" : "records"} for ${toSentence(missing)} are missing and are required.`,
  returnPathMissing: (host: string) => `There is no return path record at ${host}`,
  returnPathWrong: (host: string, found: string, expected: string) =>
    `There is a CNAME record at ${host} but it points to ${found} which is incorrect. It should point to ${expected}.`,
};

/** Bodies of the answers Rails (or a proxy in front of it) gives outside the JSON envelope. */
export const httpTexts = {
  badRequest: "Bad Request",
  notFound: "Not Found",
  payloadTooLarge: "Payload Too Large",
  internalError: "Internal Server Error",
  tooManyRequests: "Too Many Requests",
  serviceUnavailable: "Service Unavailable",
};
