/**
 * Which API operation a request is. The provider joins its base URL and `zones/...`, so the
 * same routes are served with and without the `/client/v4` prefix. Ids are matched as path
 * segments of any form here; their format is checked by the service (Cloudflare answers 7003).
 */

export type RouteKind =
  | "zones.list"
  | "zones.get"
  | "dns_records.list"
  | "dns_records.create"
  | "dns_records.get"
  | "dns_records.update"
  | "dns_records.patch"
  | "dns_records.delete"
  | "dns_records.batch";

export type Route =
  | { kind: RouteKind; zoneId?: string; recordId?: string }
  | { kind: "method_not_allowed" }
  | { kind: "unknown" };

const API_PREFIX = "/client/v4";

export function parseRoute(method: string, pathname: string): Route {
  let path = pathname;
  if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) path = path.slice(API_PREFIX.length);
  const segments = path.split("/").filter((segment) => segment !== "");
  const [zones, zoneId, records, recordId, ...rest] = segments.map(decodeSegment);
  if (zones !== "zones" || rest.length > 0) return { kind: "unknown" };

  const pick = (byMethod: Partial<Record<string, RouteKind>>): Route => {
    const kind = byMethod[method];
    return kind ? { kind, zoneId, recordId } : { kind: "method_not_allowed" };
  };
  if (zoneId === undefined) return pick({ GET: "zones.list" });
  if (records === undefined) return pick({ GET: "zones.get" });
  if (records !== "dns_records") return { kind: "unknown" };
  if (recordId === undefined) return pick({ GET: "dns_records.list", POST: "dns_records.create" });
  if (recordId === "batch")
    return method === "POST" ? { kind: "dns_records.batch", zoneId } : { kind: "method_not_allowed" };
  return pick({
    GET: "dns_records.get",
    PUT: "dns_records.update",
    PATCH: "dns_records.patch",
    DELETE: "dns_records.delete",
  });
}

/** The request-log and fault-rule name of a route, e.g. `cloudflare:dns_records.create`. */
export function endpointName(route: Route): string {
  const kind = route.kind === "method_not_allowed" ? "unknown" : route.kind;
  return `cloudflare:${kind}`;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
