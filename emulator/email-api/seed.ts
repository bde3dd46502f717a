import { ServerRecord } from "../store/state";
import { Store } from "../store/store";
import { insertServer } from "./servers";
import { sameText } from "./validation";

export interface SeedServerOptions {
  name: string;
  /** The key clients send in `X-Server-API-Key`. */
  apiKey: string;
  /** The SMTP relay password; the API refuses it. */
  smtpKey: string;
  /** HTTP endpoints routes can deliver to. */
  endpoints: { name: string; url: string }[];
}

/**
 * Makes sure a Live server with known keys exists, for the CLI and tests. Idempotent by name: an
 * existing server (say, from a state file) is returned unchanged, keys and endpoints included.
 */
export function seedServer(store: Store, options: SeedServerOptions): ServerRecord {
  const existing = store.state.servers.find((server) => sameText(server.name, options.name));
  if (existing) return existing;
  return insertServer(store, { ...options, mode: "Live" });
}
