import { timingSafeEqual } from "node:crypto";
import { IncomingHttpHeaders } from "node:http";
import { ServerRecord } from "../store/state";
import { Store } from "../store/store";
import { ApiError } from "./errors";
import { authTexts } from "./messages";
import { sameText } from "./validation";

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : (value ?? "");
}

/**
 * Postal's `authenticate_as_server`: only a credential of type API opens the API (an SMTP key is
 * refused like an unknown one), and the refusal echoes the key back in `data.token`. The lookup
 * is case-insensitive because Postal's MySQL collation (`utf8mb4_general_ci`) is.
 */
export function authenticateServer(store: Store, headers: IncomingHttpHeaders): ServerRecord {
  const key = header(headers, "x-server-api-key");
  if (key.trim() === "") throw new ApiError("AccessDenied", { message: authTexts.serverKeyMissing });

  const credential = store.state.credentials.find((c) => c.type === "API" && sameText(c.key, key));
  const server = credential && store.state.servers.find((s) => s.id === credential.serverId);
  if (!server) {
    throw new ApiError("InvalidServerAPIKey", { message: authTexts.serverKeyInvalid, token: key });
  }
  return server;
}

/** `X-Master-Key` for installation-wide operations (DECIDED wording; the key is never echoed). */
export function authenticateMaster(masterKey: string, headers: IncomingHttpHeaders): void {
  const key = header(headers, "x-master-key");
  if (key.trim() === "") throw new ApiError("AccessDenied", { message: authTexts.masterKeyMissing });
  if (!constantTimeEqual(key, masterKey)) {
    throw new ApiError("AccessDenied", { message: authTexts.masterKeyInvalid });
  }
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}
