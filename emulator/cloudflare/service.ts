/**
 * The Cloudflare v4 DNS-records API as `@pulumi/cloudflare` v6 (terraform-provider-cloudflare
 * v5.19.1, cloudflare-go v6) uses it: zones list/get and DNS-record CRUD, field for field as
 * that provider's `internal/services/dns_record` sends and reads them.
 *
 * Decisions where those sources are silent:
 * - Routing comes before authentication: an unknown path is 404/7000 and a malformed id 400/7003
 *   (+7000) whatever the headers; then a missing/malformed `Authorization` is 400/6003 (6111)
 *   and a wrong token 403/10000 (not 9109/401).
 * - A well-formed id of no zone: 404, 1001 "Invalid zone identifier". An unknown record id (or
 *   one in another zone): 404, 81044. A method a path lacks: 405, 7001.
 * - Body that is not JSON: 400, 6007 "Malformed JSON in request body"; JSON of the wrong shape
 *   (not an object, a known field of the wrong type): 400, 9207 "Request body is invalid.".
 *   Unknown fields (`data`, `private_routing`) are ignored.
 * - Names: `@`, a single relative label (`www`) or a name ending in the zone, with or without
 *   trailing dot. Real Cloudflare appends the zone to any other name; the stand-in refuses a
 *   dotted name outside the zone with 400, 9000 "DNS name is invalid." so a record sent to the
 *   wrong zone fails loudly. Multi-label relative names (`_dmarc.sub`) must therefore be FQDNs.
 * - Unsupported or missing type: 400, 1004 + [9020 "Invalid DNS record type"]. Missing content:
 *   1004 + [9101 "content is a required field."]. Priority out of 0..65535: 1004 + [9008]. Bad
 *   hostname target (CNAME/MX/NS): 400, 9007. Proxied on TXT/MX/NS: 400, 9004. 9005/9006 are 400.
 * - Conflicts are 400 (81053/81054 statuses are [uncertain]), in either order: a CNAME where an
 *   A/AAAA/CNAME is (81053), an A/AAAA where a CNAME is (81054). TXT, MX and NS may share a name
 *   with a CNAME, as on Cloudflare (`record-conflicts.ts` cites why). NS exclusivity on a name is
 *   not enforced.
 * - Stored as sent except where Cloudflare rewrites: names lowercase FQDN; CNAME/MX/NS content
 *   lowercase (trailing dot kept); AAAA compressed (RFC 5952); TXT never quoted, long quoted
 *   strings split when `splitLongTxt`; a proxied record's TTL 1. An empty `comment` counts as
 *   none; comments and tags are checked (`record-input.ts`). TXT length limits (2,048 / 8,192)
 *   are not enforced.
 * - `meta` is `{}` (plus the shadow fields when a list asks for them); `settings` holds the
 *   type's known keys (`record-json.ts`); no `locked` field.
 * - Lists: invalid `match`, `tag_match`, `order`, `direction`, `proxied`, `page` and an
 *   out-of-range `per_page` (records 1..5,000,000, zones 5..50) are 400, 9201. `search` and the
 *   shadow parameters are served. Without `order` records come in creation order.
 * - Faults: 429 → 971 "Please wait and consider throttling your request speed", 503 → 10001
 *   "Service temporarily unavailable", 500 → 10002 "Internal server error", body too large → 413,
 *   10008 "Request entity too large".
 * - Batch (`batch.ts`): deletes, patches, puts and posts in that order, all or nothing, at most 200
 *   operations a request (the Free plan's). Export, import and scan are not served.
 */
import { CloudflareConfig } from "../config";
import { ServiceDefinition, ServiceRequest, ServiceResponse } from "../http/service";
import { Store } from "../store/store";
import { checkAuthorization } from "./auth";
import { CloudflareApiError, failure, success } from "./envelope";
import { cloudflareErrors } from "./errors";
import { CLOUDFLARE_ID } from "./ids";
import {
  RecordContext,
  createRecord,
  deleteRecord,
  getRecord,
  listRecords,
  patchRecord,
  replaceRecord,
} from "./dns-records";
import { Route, endpointName, parseRoute } from "./routes";
import { batchRecords } from "./batch";
import { listZones, requireZone, zoneJson } from "./zones";

export interface CloudflareServiceContext {
  store: Store;
  config: CloudflareConfig;
}

export function cloudflareService(ctx: CloudflareServiceContext): ServiceDefinition {
  return {
    name: "cloudflare",
    endpointOf: (method, pathname) => endpointName(parseRoute(method, pathname)),
    handle: async (request) => {
      try {
        return answer(ctx, request, parseRoute(request.method, request.url.pathname));
      } catch (error) {
        if (error instanceof CloudflareApiError) return failure(error.status, error.errors);
        throw error;
      }
    },
    faultResponse: (status) =>
      status === 429
        ? failure(429, [{ code: 971, message: "Please wait and consider throttling your request speed" }])
        : failure(503, [{ code: 10001, message: "Service temporarily unavailable" }]),
    tooLargeResponse: () => failure(413, [{ code: 10008, message: "Request entity too large" }]),
    internalErrorResponse: () => failure(500, [{ code: 10002, message: "Internal server error" }]),
  };
}

function answer(ctx: CloudflareServiceContext, request: ServiceRequest, route: Route): ServiceResponse {
  if (route.kind === "unknown") throw cloudflareErrors.noRoute();
  if (route.kind === "method_not_allowed") throw cloudflareErrors.methodNotAllowed(request.method);
  const { zoneId, recordId } = route;
  for (const id of [zoneId, recordId]) {
    if (id !== undefined && !CLOUDFLARE_ID.test(id))
      throw cloudflareErrors.invalidIdentifier(request.url.pathname);
  }
  checkAuthorization(request.headers, ctx.config.apiToken);

  if (route.kind === "zones.list") return listZones(ctx.store, request.url.searchParams);
  const zone = requireZone(ctx.store, zoneId ?? "");
  if (route.kind === "zones.get") return success(zoneJson(zone));

  const records: RecordContext = { ...ctx, zone };
  const id = recordId ?? "";
  switch (route.kind) {
    case "dns_records.list":
      return listRecords(records, request.url.searchParams);
    case "dns_records.create":
      return createRecord(records, parseJsonBody(request.body));
    case "dns_records.get":
      return getRecord(records, id);
    case "dns_records.update":
      return replaceRecord(records, id, parseJsonBody(request.body));
    case "dns_records.patch":
      return patchRecord(records, id, parseJsonBody(request.body));
    case "dns_records.delete":
      return deleteRecord(records, id);
    case "dns_records.batch":
      return batchRecords(records, parseJsonBody(request.body));
  }
}

function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw cloudflareErrors.malformedJson();
  }
}
