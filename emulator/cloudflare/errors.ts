import { ApiMessage, CloudflareApiError } from "./envelope";

/**
 * The errors the stand-in answers with, in Cloudflare's codes and words
 * (as the v4 API documents them and terraform-provider-cloudflare v5 handles them). Codes no
 * source gives are marked "chosen".
 */

const DOCS_SAME_NAME =
  "https://developers.cloudflare.com/dns/manage-dns-records/troubleshooting/records-with-same-name/";

const fail = (status: number, ...errors: ApiMessage[]) => new CloudflareApiError(status, errors);
const dnsValidation = (code: number, message: string) =>
  fail(400, { code: 1004, message: "DNS Validation Error", error_chain: [{ code, message }] });

export const cloudflareErrors = {
  missingAuthorization: () =>
    fail(400, {
      code: 6003,
      message: "Invalid request headers",
      error_chain: [{ code: 6111, message: "Invalid format for Authorization header" }],
    }),
  authentication: () => fail(403, { code: 10000, message: "Authentication error" }),

  noRoute: () => fail(404, { code: 7000, message: "No route for that URI" }),
  invalidIdentifier: (path: string) =>
    fail(
      400,
      { code: 7003, message: `Could not route to ${path}, perhaps your object identifier is invalid?` },
      { code: 7000, message: "No route for that URI" },
    ),
  // chosen: Cloudflare's router answers 405 with 7001 for a method a path does not have.
  methodNotAllowed: (method: string) =>
    fail(405, { code: 7001, message: `Method ${method} not available for that URI.` }),
  // chosen: a well-formed id of no zone.
  zoneNotFound: () => fail(404, { code: 1001, message: "Invalid zone identifier" }),
  recordNotFound: () => fail(404, { code: 81044, message: "Record does not exist." }),

  // chosen: 6007 for a body that is not JSON, 9207 for JSON of the wrong shape.
  malformedJson: () => fail(400, { code: 6007, message: "Malformed JSON in request body" }),
  invalidBody: () => fail(400, { code: 9207, message: "Request body is invalid." }),
  // chosen: Cloudflare documents the batch's size limits per plan, not its answer past them.
  batchTooLarge: (limit: number) =>
    fail(400, { code: 1004, message: `DNS Validation Error: a batch may hold at most ${limit} operations` }),

  invalidName: () => fail(400, { code: 9000, message: "DNS name is invalid." }),
  // chosen: 9020 wrapped in 1004, like the other record validation errors.
  invalidType: () => dnsValidation(9020, "Invalid DNS record type"),
  // chosen: patterned on 9100.
  contentRequired: () => dnsValidation(9101, "content is a required field."),
  invalidTtl: () => dnsValidation(9021, "TTL must be between 60 and 86400 seconds, or 1 for Automatic."),
  priorityRequired: () => dnsValidation(9100, "priority is a required field."),
  // chosen: the old priority message for an out-of-range value.
  invalidPriority: () =>
    dnsValidation(9008, "Invalid priority, priority must be set and be between 0 and 65535"),
  invalidIpv4: () => fail(400, { code: 9005, message: "Content for A record must be a valid IPv4 address." }),
  invalidIpv6: () =>
    fail(400, { code: 9006, message: "Content for AAAA record must be a valid IPv6 address." }),
  // chosen: 9007 for every hostname target (CNAME, MX, NS).
  invalidHostname: (type: string) =>
    fail(400, { code: 9007, message: `Content for ${type} record is invalid.` }),
  notProxiable: () => fail(400, { code: 9004, message: "This record type cannot be proxied." }),

  // A comment over the free plan's 100 characters: code and words from a client's log of the
  // API's answer (STRRL/cloudflare-tunnel-ingress-controller issue #168).
  commentTooLong: () =>
    fail(400, { code: 9313, message: "DNS record comment exceeds the maximum length of 100 characters." }),
  // chosen: the same code for a line break, which the record-attributes page forbids.
  commentLineBreak: () =>
    fail(400, {
      code: 9313,
      message: "DNS record comment must not contain newline or carriage return characters.",
    }),
  // chosen: 9314 for a tag that is not `name:value` within the documented limits.
  invalidTag: (why: string) => fail(400, { code: 9314, message: `Invalid DNS record tag: ${why}` }),

  /**
   * A list parameter of a value Cloudflare does not take. 9201 and its words for `order` are
   * from an answer quoted in mumi/CloudFlare-Dynamic-DNS pull request #2 ("Order must be one of
   * type, name, content, ttl or proxied."); for the other parameters (chosen) the same code,
   * naming the parameter.
   */
  invalidListParameter: (message: string) => fail(400, { code: 9201, message }),

  identicalRecord: () => fail(400, { code: 81058, message: "An identical record already exists." }),
  hostHasAddressOrCname: () =>
    fail(400, { code: 81053, message: "An A, AAAA, or CNAME record with that host already exists." }),
  hostHasCname: () =>
    fail(400, {
      code: 81054,
      message: `A CNAME record with that host already exists. For more details, refer to <${DOCS_SAME_NAME}>.`,
    }),
};
