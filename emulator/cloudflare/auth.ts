import { IncomingHttpHeaders } from "node:http";
import { cloudflareErrors } from "./errors";

/**
 * API-token authentication: `Authorization: Bearer <token>`. A missing or malformed header is a
 * 400 (6003/6111), a well-formed header with another token a 403 (10000), as Cloudflare answers.
 * Global-key headers (`X-Auth-Key`) are not accepted: the stand-in only knows its token.
 */
export function checkAuthorization(headers: IncomingHttpHeaders, apiToken: string): void {
  const match = /^Bearer ([^\s]+)$/.exec(headers.authorization ?? "");
  if (!match) throw cloudflareErrors.missingAuthorization();
  if (match[1] !== apiToken) throw cloudflareErrors.authentication();
}
